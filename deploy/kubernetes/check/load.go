package check

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// ErrUnknownKind is returned for a manifest of a kind the set should not
// hold.
var ErrUnknownKind = errors.New("unexpected kind")

// Kustomization is the part of kustomize's file the set uses.
type Kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
}

// Set is every object of the manifests, by kind.
type Set struct {
	Kustomization *Kustomization
	Files         []string // the manifest files other than kustomization.yaml
	ConfigMaps    []*corev1.ConfigMap
	Services      []*corev1.Service
	StatefulSets  []*appsv1.StatefulSet
	PDBs          []*policyv1.PodDisruptionBudget
}

// docSep splits a YAML stream into documents.
var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// LoadDir decodes every *.yaml file of dir.
func LoadDir(dir string) (*Set, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	s := &Set{}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if filepath.Base(p) != "kustomization.yaml" {
			s.Files = append(s.Files, filepath.Base(p))
		}
		for i, doc := range docSep.Split(string(raw), -1) {
			if len(bytes.TrimSpace([]byte(doc))) == 0 {
				continue
			}
			if err := s.Add([]byte(doc)); err != nil {
				return nil, fmt.Errorf("%s, document %d: %w", filepath.Base(p), i+1, err)
			}
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
	case "kustomize.config.k8s.io/v1beta1 Kustomization":
		return strict(doc, &s.Kustomization)
	case "v1 ConfigMap":
		return add(doc, &s.ConfigMaps)
	case "v1 Service":
		return add(doc, &s.Services)
	case "apps/v1 StatefulSet":
		return add(doc, &s.StatefulSets)
	case "policy/v1 PodDisruptionBudget":
		return add(doc, &s.PDBs)
	}
	return fmt.Errorf("%w: %s %s", ErrUnknownKind, tm.APIVersion, tm.Kind)
}

func add[T any](doc []byte, list *[]*T) error {
	obj := new(T)
	if err := strict(doc, obj); err != nil {
		return err
	}
	*list = append(*list, obj)
	return nil
}

// strict decodes YAML through JSON into v, refusing unknown fields and
// duplicate keys.
func strict(doc []byte, v any) error {
	return yaml.UnmarshalStrict(doc, v)
}
