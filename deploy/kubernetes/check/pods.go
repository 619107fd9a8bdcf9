package check

import (
	"fmt"
	"path"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// checkPods checks the pod template: the policy, the probes, the security
// context and the volumes.
func (s *Set) checkPods() []error {
	sts := s.StatefulSets[0]
	spec := sts.Spec.Template.Spec
	var errs []error
	if len(spec.Containers) != 1 {
		return failf("StatefulSet %s: %d containers, want 1", sts.Name, len(spec.Containers))
	}
	if sts.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
		errs = append(errs, fmt.Errorf("StatefulSet %s: podManagementPolicy %q, want Parallel", sts.Name, sts.Spec.PodManagementPolicy))
	}
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
		errs = append(errs, fmt.Errorf("StatefulSet %s: no pod anti-affinity", sts.Name))
	}
	errs = append(errs, s.checkProbes()...)
	errs = append(errs, s.checkSecurity()...)
	errs = append(errs, s.checkVolumes()...)
	for _, p := range s.container().Ports {
		for _, msg := range validation.IsValidPortName(p.Name) {
			errs = append(errs, fmt.Errorf("container port %q: %s", p.Name, msg))
		}
	}
	return errs
}

// checkProbes wants readiness on /ready and liveness on /live, on the
// AdminServer's container port 8080.
func (s *Set) checkProbes() []error {
	c := s.container()
	var errs []error
	want := map[string]*corev1.Probe{"/ready": c.ReadinessProbe, "/live": c.LivenessProbe}
	for p, probe := range want {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != p {
			errs = append(errs, fmt.Errorf("container %s: want an HTTP probe on %s", c.Name, p))
			continue
		}
		errs = append(errs, s.checkProbePort(probe)...)
	}
	if c.StartupProbe != nil && c.StartupProbe.HTTPGet != nil {
		errs = append(errs, s.checkProbePort(c.StartupProbe)...)
	}
	return errs
}

func (s *Set) checkProbePort(p *corev1.Probe) []error {
	port, ok := s.containerPort(p.HTTPGet.Port.String())
	if !ok || port.ContainerPort != 8080 {
		return failf("probe %s: port %s is not the AdminServer's container port 8080", p.HTTPGet.Path, p.HTTPGet.Port.String())
	}
	return nil
}

// checkSecurity wants a non-root user, a read-only root file system and
// no privilege escalation.
func (s *Set) checkSecurity() []error {
	pod, c := s.StatefulSets[0].Spec.Template.Spec.SecurityContext, s.container().SecurityContext
	var errs []error
	if pod == nil || pod.RunAsNonRoot == nil || !*pod.RunAsNonRoot || pod.RunAsUser == nil || *pod.RunAsUser == 0 {
		errs = append(errs, fmt.Errorf("pod securityContext: want runAsNonRoot with a non-zero runAsUser"))
	}
	if c == nil || c.ReadOnlyRootFilesystem == nil || !*c.ReadOnlyRootFilesystem {
		errs = append(errs, fmt.Errorf("container securityContext: want readOnlyRootFilesystem"))
	}
	if c == nil || c.AllowPrivilegeEscalation == nil || *c.AllowPrivilegeEscalation {
		errs = append(errs, fmt.Errorf("container securityContext: want allowPrivilegeEscalation false"))
	}
	return errs
}

// checkVolumes wants every mount to name a volume or a claim template,
// and every directory the server writes (a read-only root) to be under a
// mount, the data one on a persistent claim.
func (s *Set) checkVolumes() []error {
	sts := s.StatefulSets[0]
	kinds := map[string]string{}
	for _, v := range sts.Spec.Template.Spec.Volumes {
		kinds[v.Name] = "volume"
	}
	for _, pvc := range sts.Spec.VolumeClaimTemplates {
		kinds[pvc.Name] = "claim"
	}
	var errs []error
	for _, m := range s.container().VolumeMounts {
		if kinds[m.Name] == "" {
			errs = append(errs, fmt.Errorf("volumeMount %s names no volume or volumeClaimTemplate", m.Name))
		}
	}
	env := s.configMap()
	for _, key := range []string{"ZOO_CONF_DIR", "ZOO_DATA_DIR", "ZOO_DATA_LOG_DIR"} {
		dir := env[key]
		mount := s.mountOf(dir)
		switch {
		case dir == "":
			errs = append(errs, fmt.Errorf("ConfigMap: %s unset (the image's default would be a directory of the read-only root)", key))
		case mount == nil:
			errs = append(errs, fmt.Errorf("%s=%s is on the read-only root file system, under no volumeMount", key, dir))
		case key != "ZOO_CONF_DIR" && kinds[mount.Name] != "claim":
			errs = append(errs, fmt.Errorf("%s=%s is on volume %s, not on a persistent volumeClaimTemplate", key, dir, mount.Name))
		}
	}
	return errs
}

// mountOf is the mount that holds dir, nil when none does.
func (s *Set) mountOf(dir string) *corev1.VolumeMount {
	for i, m := range s.container().VolumeMounts {
		rel, under := strings.CutPrefix(path.Clean(dir), path.Clean(m.MountPath))
		if under && (rel == "" || strings.HasPrefix(rel, "/")) {
			return &s.container().VolumeMounts[i]
		}
	}
	return nil
}
