package check

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// checkServices wants serviceName to be a headless Service that publishes
// not-ready pods, every Service to select the pods, and every target port
// to be a container port.
func (s *Set) checkServices() []error {
	sts := s.StatefulSets[0]
	var errs []error
	hs := s.service(sts.Spec.ServiceName)
	switch {
	case hs == nil:
		errs = append(errs, fmt.Errorf("StatefulSet %s: serviceName %q is no Service here", sts.Name, sts.Spec.ServiceName))
	case hs.Spec.ClusterIP != corev1.ClusterIPNone:
		errs = append(errs, fmt.Errorf("Service %s (the serviceName) is not headless (clusterIP: None)", hs.Name))
	case !hs.Spec.PublishNotReadyAddresses:
		errs = append(errs, fmt.Errorf("Service %s: publishNotReadyAddresses must be true: a server resolves its own and its peers' names before it is ready", hs.Name))
	}
	pods := labels.Set(sts.Spec.Template.Labels)
	for _, svc := range s.Services {
		if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(pods) {
			errs = append(errs, fmt.Errorf("Service %s: selector %v does not select the pods %v", svc.Name, svc.Spec.Selector, pods))
		}
		for _, p := range svc.Spec.Ports {
			target := p.TargetPort.String()
			if p.TargetPort.IntValue() == 0 && p.TargetPort.StrVal == "" {
				target = fmt.Sprint(p.Port)
			}
			if _, ok := s.containerPort(target); !ok {
				errs = append(errs, fmt.Errorf("Service %s: port %s targets %q, which the container does not expose", svc.Name, p.Name, target))
			}
			for _, msg := range validation.IsValidPortName(p.Name) {
				errs = append(errs, fmt.Errorf("Service %s: port name %q: %s", svc.Name, p.Name, msg))
			}
		}
	}
	return errs
}
