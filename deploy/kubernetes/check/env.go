package check

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/zkraft/zkraft/deploy/envconfig"
)

// checkEnv wants every variable the pods get to be one the image reads (or
// one another variable refers to), the ConfigMap and the Secret the
// container names to be the ones documented, and ZOO_SERVERS to name the
// founding pods by their stable DNS names on the container's ports.
func (s *Set) checkEnv() []error {
	c := s.container()
	var errs []error
	known := envconfig.Known()
	refs := referenced(c.Env)
	names := slices.Collect(func(yield func(string) bool) {
		for k := range s.configMap() {
			if !yield(k) {
				return
			}
		}
	})
	for _, e := range c.Env {
		names = append(names, e.Name)
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name != "zkraft-super" {
			errs = append(errs, fmt.Errorf("env %s: Secret %q is not the zkraft-super that docs/deploy.md creates", e.Name, e.ValueFrom.SecretKeyRef.Name))
		}
	}
	for _, n := range names {
		for _, msg := range validation.IsEnvVarName(n) {
			errs = append(errs, fmt.Errorf("env %s: %s", n, msg))
		}
		if !slices.Contains(known, n) && !refs[n] {
			errs = append(errs, fmt.Errorf("env %s: the image does not read it (a typo?)", n))
		}
	}
	for _, from := range c.EnvFrom {
		if from.ConfigMapRef == nil || from.ConfigMapRef.Name != s.ConfigMaps[0].Name {
			errs = append(errs, fmt.Errorf("envFrom: want the ConfigMap %s", s.ConfigMaps[0].Name))
		}
	}
	return append(errs, s.checkServers()...)
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// referenced are the names $(NAME) refers to in env values.
func referenced(env []corev1.EnvVar) map[string]bool {
	out := map[string]bool{}
	for _, e := range env {
		for _, m := range varRef.FindAllStringSubmatch(e.Value, -1) {
			out[m[1]] = true
		}
	}
	return out
}

// checkServers wants server.N=<set>-<N-1>.<serviceName>:<peer>:<election>;<client>
// for N = 1..replicas, with the container's port numbers, and
// ZKRAFT_SERVER_LINE to follow the same pattern for any pod.
func (s *Set) checkServers() []error {
	sts := s.StatefulSets[0]
	lines := fields(s.configMap()["ZOO_SERVERS"])
	want := func(host string) string {
		return fmt.Sprintf("%s.%s:%d:%d;%d", host, sts.Spec.ServiceName, s.portNumber("peer"), s.portNumber("leader-election"), s.portNumber("client"))
	}
	var errs []error
	if sts.Spec.Replicas == nil || int(*sts.Spec.Replicas) != len(lines) {
		errs = append(errs, fmt.Errorf("ZOO_SERVERS has %d lines for %v replicas: the founding ensemble is the initial replicas", len(lines), sts.Spec.Replicas))
	}
	for i, l := range lines {
		exp := "server." + strconv.Itoa(i+1) + "=" + want(fmt.Sprintf("%s-%d", sts.Name, i))
		if l != exp {
			errs = append(errs, fmt.Errorf("ZOO_SERVERS line %d is %q, want %q", i+1, l, exp))
		}
	}
	if id, _ := strconv.ParseBool(s.configMap()["ZKRAFT_MY_ID_FROM_HOSTNAME"]); !id {
		errs = append(errs, fmt.Errorf("ConfigMap: ZKRAFT_MY_ID_FROM_HOSTNAME must be true: myid comes from the pod's ordinal"))
	}
	for _, e := range s.container().Env {
		if e.Name == "ZKRAFT_SERVER_LINE" && e.Value != want("$(POD_NAME)") {
			errs = append(errs, fmt.Errorf("ZKRAFT_SERVER_LINE is %q, want %q", e.Value, want("$(POD_NAME)")))
		}
	}
	return errs
}

// portNumber is the number of a named container port, 0 when missing.
func (s *Set) portNumber(name string) int32 {
	p, _ := s.containerPort(name)
	return p.ContainerPort
}
