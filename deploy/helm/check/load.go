package check

import (
	"errors"
	"fmt"
	"regexp"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// ErrUnknownKind is returned for a document of a kind the chart should
// not render.
var ErrUnknownKind = errors.New("unexpected kind")

// ServiceMonitor is the part of the Prometheus operator's
// monitoring.coreos.com/v1 ServiceMonitor the chart writes: strict
// decoding into it catches a misspelt field the chart emits.
type ServiceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		JobLabel          string               `json:"jobLabel,omitempty"`
		Selector          metav1.LabelSelector `json:"selector"`
		NamespaceSelector struct {
			MatchNames []string `json:"matchNames,omitempty"`
			Any        bool     `json:"any,omitempty"`
		} `json:"namespaceSelector"`
		Endpoints []struct {
			Port              string           `json:"port"`
			Path              string           `json:"path,omitempty"`
			Interval          string           `json:"interval,omitempty"`
			ScrapeTimeout     string           `json:"scrapeTimeout,omitempty"`
			HonorLabels       bool             `json:"honorLabels,omitempty"`
			Relabelings       []map[string]any `json:"relabelings,omitempty"`
			MetricRelabelings []map[string]any `json:"metricRelabelings,omitempty"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// Set is every rendered object, by kind.
type Set struct {
	ConfigMaps      []*corev1.ConfigMap
	Secrets         []*corev1.Secret
	Services        []*corev1.Service
	StatefulSets    []*appsv1.StatefulSet
	PDBs            []*policyv1.PodDisruptionBudget
	ServiceMonitors []*ServiceMonitor
}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// Load decodes every document strictly.
func Load(docs []Doc) (*Set, error) {
	s := &Set{}
	for _, d := range docs {
		if err := s.Add([]byte(d.YAML)); err != nil {
			return nil, fmt.Errorf("%s: %w", d.Source, err)
		}
	}
	return s, nil
}

// Add decodes one document strictly into the type its kind names.
func (s *Set) Add(doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	switch tm.APIVersion + " " + tm.Kind {
	case "v1 ConfigMap":
		return add(doc, &s.ConfigMaps)
	case "v1 Secret":
		return add(doc, &s.Secrets)
	case "v1 Service":
		return add(doc, &s.Services)
	case "apps/v1 StatefulSet":
		return add(doc, &s.StatefulSets)
	case "policy/v1 PodDisruptionBudget":
		return add(doc, &s.PDBs)
	case "monitoring.coreos.com/v1 ServiceMonitor":
		return add(doc, &s.ServiceMonitors)
	}
	return fmt.Errorf("%w: %s %s", ErrUnknownKind, tm.APIVersion, tm.Kind)
}

func add[T any](doc []byte, list *[]*T) error {
	obj := new(T)
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return err
	}
	*list = append(*list, obj)
	return nil
}
