package check

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate runs every check and returns all the problems found.
func (s *Set) Validate() error {
	var errs []error
	errs = append(errs, s.checkShape()...)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	errs = append(errs, s.checkNames()...)
	errs = append(errs, s.checkKustomization()...)
	errs = append(errs, s.checkSelectors()...)
	errs = append(errs, s.checkServices()...)
	errs = append(errs, s.checkPods()...)
	errs = append(errs, s.checkEnv()...)
	return errors.Join(errs...)
}

// checkShape wants one StatefulSet, one ConfigMap, one PDB, two Services.
func (s *Set) checkShape() []error {
	var errs []error
	count := func(kind string, n, want int) {
		if n != want {
			errs = append(errs, fmt.Errorf("%d %s, want %d", n, kind, want))
		}
	}
	count("StatefulSet", len(s.StatefulSets), 1)
	count("ConfigMap", len(s.ConfigMaps), 1)
	count("PodDisruptionBudget", len(s.PDBs), 1)
	count("Service", len(s.Services), 2)
	if s.Kustomization == nil {
		errs = append(errs, errors.New("no kustomization.yaml"))
	}
	return errs
}

// checkNames validates object names and labels as the API server does.
func (s *Set) checkNames() []error {
	var errs []error
	metas := []*metav1.ObjectMeta{&s.StatefulSets[0].ObjectMeta, &s.ConfigMaps[0].ObjectMeta, &s.PDBs[0].ObjectMeta,
		&s.StatefulSets[0].Spec.Template.ObjectMeta}
	for _, svc := range s.Services {
		metas = append(metas, &svc.ObjectMeta)
		for _, msg := range validation.IsDNS1035Label(svc.Name) {
			errs = append(errs, fmt.Errorf("Service %s: %s", svc.Name, msg))
		}
	}
	for _, m := range metas {
		if m.Name != "" {
			for _, msg := range validation.IsDNS1123Subdomain(m.Name) {
				errs = append(errs, fmt.Errorf("%s: %s", m.Name, msg))
			}
		}
		for _, e := range metavalidation.ValidateLabels(m.Labels, field.NewPath("metadata", "labels")) {
			errs = append(errs, fmt.Errorf("%s: %v", m.Name, e))
		}
	}
	return errs
}

// checkKustomization wants kustomization.yaml to list every manifest.
func (s *Set) checkKustomization() []error {
	got := slices.Sorted(slices.Values(s.Kustomization.Resources))
	if !slices.Equal(got, s.Files) {
		return []error{fmt.Errorf("kustomization.yaml lists %v, the folder holds %v", got, s.Files)}
	}
	return nil
}

// checkSelectors wants the StatefulSet's and the PDB's selectors valid
// and matching the pod template's labels.
func (s *Set) checkSelectors() []error {
	sts, pdb := s.StatefulSets[0], s.PDBs[0]
	pods := labels.Set(sts.Spec.Template.Labels)
	var errs []error
	for what, sel := range map[string]*metav1.LabelSelector{"StatefulSet " + sts.Name: sts.Spec.Selector, "PodDisruptionBudget " + pdb.Name: pdb.Spec.Selector} {
		if e := metavalidation.ValidateLabelSelector(sel, metavalidation.LabelSelectorValidationOptions{}, field.NewPath("spec", "selector")); len(e) > 0 {
			errs = append(errs, fmt.Errorf("%s: %v", what, e.ToAggregate()))
			continue
		}
		ls, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || ls.Empty() || !ls.Matches(pods) {
			errs = append(errs, fmt.Errorf("%s: selector %v does not select the pod template's labels %v", what, sel, pods))
		}
	}
	if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 || pdb.Spec.MinAvailable != nil {
		errs = append(errs, fmt.Errorf("PodDisruptionBudget %s: want maxUnavailable 1 alone", pdb.Name))
	}
	return errs
}

// container is the StatefulSet's one container.
func (s *Set) container() *corev1.Container {
	return &s.StatefulSets[0].Spec.Template.Spec.Containers[0]
}

// containerPort finds a container port by name or number.
func (s *Set) containerPort(p string) (corev1.ContainerPort, bool) {
	for _, cp := range s.container().Ports {
		if cp.Name == p || fmt.Sprint(cp.ContainerPort) == p {
			return cp, true
		}
	}
	return corev1.ContainerPort{}, false
}

// service finds a Service by name.
func (s *Set) service(name string) *corev1.Service {
	for _, svc := range s.Services {
		if svc.Name == name {
			return svc
		}
	}
	return nil
}

// configMap is the ConfigMap's data.
func (s *Set) configMap() map[string]string { return s.ConfigMaps[0].Data }

// failf is shorthand for one error in a list.
func failf(format string, args ...any) []error { return []error{fmt.Errorf(format, args...)} }

// fields splits a white-space separated value, as the image does.
func fields(v string) []string { return strings.Fields(v) }
