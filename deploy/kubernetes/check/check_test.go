package check

import (
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func load(t *testing.T) *Set {
	t.Helper()
	s, err := LoadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestManifestsAreValid is the check `make test` runs.
func TestManifestsAreValid(t *testing.T) {
	if err := load(t).Validate(); err != nil {
		t.Fatalf("deploy/kubernetes:\n%v", err)
	}
}

// TestStrictDecodingRejectsMisspeltFields: a field the API does not have
// is an error, not silently dropped as kubectl apply --validate=false
// would.
func TestStrictDecodingRejectsMisspeltFields(t *testing.T) {
	raw, err := os.ReadFile("../statefulset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, typo := range [][2]string{{"podManagementPolicy:", "podManagmentPolicy:"}, {"readinessProbe:", "readynessProbe:"}, {"  replicas: 3", "  replicas: three"}} {
		bad := strings.Replace(string(raw), typo[0], typo[1], 1)
		if err := (&Set{}).Add([]byte(bad)); err == nil {
			t.Errorf("%s accepted", typo[1])
		}
	}
	if err := (&Set{}).Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n")); err == nil {
		t.Error("a Pod accepted in the set")
	}
}

// TestValidateCatchesBrokenReferences breaks one link at a time.
func TestValidateCatchesBrokenReferences(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(s *Set)
		want   string
	}{
		{"selector", func(s *Set) { s.StatefulSets[0].Spec.Selector.MatchLabels["app.kubernetes.io/name"] = "zk" }, "does not select the pod template"},
		{"serviceName", func(s *Set) { s.StatefulSets[0].Spec.ServiceName = "zk-headless" }, "is no Service"},
		{"headless", func(s *Set) { s.service("zk-hs").Spec.ClusterIP = "" }, "not headless"},
		{"not-ready pods", func(s *Set) { s.service("zk-hs").Spec.PublishNotReadyAddresses = false }, "publishNotReadyAddresses"},
		{"probe port", func(s *Set) { s.container().ReadinessProbe.HTTPGet.Port = intstr.FromString("http") }, "AdminServer"},
		{"service port", func(s *Set) { s.service("zk-cs").Spec.Ports[0].TargetPort = intstr.FromInt32(2182) }, "does not expose"},
		{"PDB", func(s *Set) { s.PDBs[0].Spec.Selector.MatchLabels["app.kubernetes.io/component"] = "client" }, "PodDisruptionBudget"},
		{"env typo", func(s *Set) { s.configMap()["ZOO_MYID"] = "1" }, "ZOO_MYID: the image does not read it"},
		{"servers", func(s *Set) {
			s.configMap()["ZOO_SERVERS"] = strings.Replace(s.configMap()["ZOO_SERVERS"], "zk-1.zk-hs", "zk-1", 1)
		}, "ZOO_SERVERS line 2"},
		{"read-only root", func(s *Set) { f := false; s.container().SecurityContext.ReadOnlyRootFilesystem = &f }, "readOnlyRootFilesystem"},
		{"data not persistent", func(s *Set) { s.configMap()["ZOO_DATA_DIR"] = "/conf/data" }, "not on a persistent"},
		{"kustomization", func(s *Set) { s.Kustomization.Resources = s.Kustomization.Resources[1:] }, "kustomization.yaml lists"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := load(t)
			tc.break_(s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
