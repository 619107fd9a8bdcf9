package check

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/zkraft/zkraft/deploy/envconfig"
)

// Want is what a value set should render.
type Want struct {
	Replicas       int
	Founders       int    // ZOO_SERVERS lines
	AntiAffinity   string // soft, hard or ""
	Persistence    bool
	PDB            bool
	Metrics        bool
	ServiceMonitor bool
	TLSClient      bool
}

// Validate runs every check and returns all the problems found.
func (s *Set) Validate(w Want) error {
	if errs := s.checkShape(w); len(errs) > 0 {
		return errors.Join(errs...)
	}
	var errs []error
	errs = append(errs, s.checkNames()...)
	errs = append(errs, s.checkSelectors(w)...)
	errs = append(errs, s.checkServices(w)...)
	errs = append(errs, s.checkPods(w)...)
	errs = append(errs, s.checkEnv(w)...)
	errs = append(errs, s.checkServiceMonitor()...)
	return errors.Join(errs...)
}

// checkShape counts the objects of each kind.
func (s *Set) checkShape(w Want) []error {
	var errs []error
	count := func(kind string, n, want int) {
		if n != want {
			errs = append(errs, fmt.Errorf("%d %s, want %d", n, kind, want))
		}
	}
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	count("StatefulSet", len(s.StatefulSets), 1)
	count("ConfigMap", len(s.ConfigMaps), 1)
	count("PodDisruptionBudget", len(s.PDBs), b(w.PDB))
	count("Service", len(s.Services), 2+b(w.Metrics))
	count("ServiceMonitor", len(s.ServiceMonitors), b(w.ServiceMonitor))
	return errs
}

// checkNames validates object names and labels as the API server does.
func (s *Set) checkNames() []error {
	var errs []error
	metas := []*metav1.ObjectMeta{&s.StatefulSets[0].ObjectMeta, &s.ConfigMaps[0].ObjectMeta, &s.StatefulSets[0].Spec.Template.ObjectMeta}
	for _, p := range s.PDBs {
		metas = append(metas, &p.ObjectMeta)
	}
	for _, sec := range s.Secrets {
		metas = append(metas, &sec.ObjectMeta)
		for k := range sec.Data {
			for _, msg := range validation.IsConfigMapKey(k) {
				errs = append(errs, fmt.Errorf("Secret %s: key %q: %s", sec.Name, k, msg))
			}
		}
	}
	for _, sm := range s.ServiceMonitors {
		metas = append(metas, &sm.ObjectMeta)
	}
	for _, svc := range s.Services {
		metas = append(metas, &svc.ObjectMeta)
		for _, msg := range validation.IsDNS1035Label(svc.Name) {
			errs = append(errs, fmt.Errorf("Service %s: %s", svc.Name, msg))
		}
	}
	// A pod's name is the StatefulSet's plus -N, and a label value.
	for _, msg := range validation.IsDNS1123Label(s.StatefulSets[0].Name + "-99") {
		errs = append(errs, fmt.Errorf("StatefulSet %s: pod names: %s", s.StatefulSets[0].Name, msg))
	}
	for _, m := range metas {
		if m.Name == "" && m != &s.StatefulSets[0].Spec.Template.ObjectMeta {
			errs = append(errs, fmt.Errorf("an object without a name"))
		}
		if m.Name != "" {
			for _, msg := range validation.IsDNS1123Subdomain(m.Name) {
				errs = append(errs, fmt.Errorf("%s: %s", m.Name, msg))
			}
		}
		for _, e := range metavalidation.ValidateLabels(m.Labels, field.NewPath("metadata", "labels")) {
			errs = append(errs, fmt.Errorf("%s: %v", m.Name, e))
		}
		for k := range m.Annotations {
			for _, msg := range validation.IsQualifiedName(k) {
				errs = append(errs, fmt.Errorf("%s: annotation %q: %s", m.Name, k, msg))
			}
		}
	}
	return errs
}

// checkSelectors wants the StatefulSet's and the PDB's selectors valid
// and matching the pod template's labels, and the PDB to set one of
// minAvailable and maxUnavailable.
func (s *Set) checkSelectors(w Want) []error {
	sts := s.StatefulSets[0]
	pods := labels.Set(sts.Spec.Template.Labels)
	sels := map[string]*metav1.LabelSelector{"StatefulSet " + sts.Name: sts.Spec.Selector}
	var errs []error
	for _, pdb := range s.PDBs {
		sels["PodDisruptionBudget "+pdb.Name] = pdb.Spec.Selector
		if (pdb.Spec.MaxUnavailable == nil) == (pdb.Spec.MinAvailable == nil) {
			errs = append(errs, fmt.Errorf("PodDisruptionBudget %s: want one of minAvailable and maxUnavailable", pdb.Name))
		}
	}
	for what, sel := range sels {
		if e := metavalidation.ValidateLabelSelector(sel, metavalidation.LabelSelectorValidationOptions{}, field.NewPath("spec", "selector")); len(e) > 0 {
			errs = append(errs, fmt.Errorf("%s: %v", what, e.ToAggregate()))
			continue
		}
		ls, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || ls.Empty() || !ls.Matches(pods) {
			errs = append(errs, fmt.Errorf("%s: selector %v does not select the pod template's labels %v", what, sel, pods))
		}
	}
	if sts.Spec.Replicas == nil || int(*sts.Spec.Replicas) != w.Replicas {
		errs = append(errs, fmt.Errorf("StatefulSet %s: replicas %v, want %d", sts.Name, sts.Spec.Replicas, w.Replicas))
	}
	return errs
}

// checkServices wants serviceName to be a headless Service that publishes
// not-ready pods, every Service to select the pods, and every target port
// to be a container port.
func (s *Set) checkServices(w Want) []error {
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
	tls := false
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
			tls = tls || target == "client-tls"
		}
	}
	if tls != w.TLSClient {
		errs = append(errs, fmt.Errorf("a Service exposes the TLS client port: %v, want %v", tls, w.TLSClient))
	}
	return errs
}

// checkPods checks the pod template: the policy, the placement, the
// probes, the security context and the volumes.
func (s *Set) checkPods(w Want) []error {
	sts := s.StatefulSets[0]
	spec := sts.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		return failf("StatefulSet %s: %d containers, want 1", sts.Name, len(spec.Containers))
	}
	var errs []error
	if sts.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
		errs = append(errs, fmt.Errorf("StatefulSet %s: podManagementPolicy %q, want Parallel", sts.Name, sts.Spec.PodManagementPolicy))
	}
	errs = append(errs, s.checkAntiAffinity(w.AntiAffinity)...)
	errs = append(errs, s.checkProbes()...)
	errs = append(errs, s.checkSecurity()...)
	errs = append(errs, s.checkVolumes(w)...)
	for _, p := range s.container().Ports {
		for _, msg := range validation.IsValidPortName(p.Name) {
			errs = append(errs, fmt.Errorf("container port %q: %s", p.Name, msg))
		}
	}
	_, metrics := s.containerPort("metrics")
	if metrics != w.Metrics {
		errs = append(errs, fmt.Errorf("container port metrics: %v, want %v", metrics, w.Metrics))
	}
	return errs
}

// checkAntiAffinity wants the preset's term, on the node's host name,
// selecting the pods.
func (s *Set) checkAntiAffinity(preset string) []error {
	a := s.StatefulSets[0].Spec.Template.Spec.Affinity
	var terms []corev1.PodAffinityTerm
	soft, hard := 0, 0
	if a != nil && a.PodAntiAffinity != nil {
		for _, t := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, t.PodAffinityTerm)
			soft++
		}
		hard = len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
	}
	var errs []error
	switch {
	case preset == "soft" && (soft != 1 || hard != 0), preset == "hard" && (soft != 0 || hard != 1), preset == "" && soft+hard != 0:
		errs = append(errs, fmt.Errorf("podAntiAffinity: %d preferred and %d required terms, want the %q preset", soft, hard, preset))
	}
	pods := labels.Set(s.StatefulSets[0].Spec.Template.Labels)
	for _, t := range terms {
		ls, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		if t.TopologyKey != "kubernetes.io/hostname" || err != nil || ls.Empty() || !ls.Matches(pods) {
			errs = append(errs, fmt.Errorf("podAntiAffinity term %v on %q does not keep the pods apart on nodes", t.LabelSelector, t.TopologyKey))
		}
	}
	return errs
}

// checkProbes wants readiness on /ready and liveness on /live, on the
// AdminServer's container port 8080.
func (s *Set) checkProbes() []error {
	c := s.container()
	var errs []error
	for p, probe := range map[string]*corev1.Probe{"/ready": c.ReadinessProbe, "/live": c.LivenessProbe, "/live ": c.StartupProbe} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != strings.TrimSpace(p) {
			errs = append(errs, fmt.Errorf("container %s: want an HTTP probe on %s", c.Name, p))
			continue
		}
		port, ok := s.containerPort(probe.HTTPGet.Port.String())
		if !ok || port.ContainerPort != 8080 {
			errs = append(errs, fmt.Errorf("probe %s: port %s is not the AdminServer's container port 8080", p, probe.HTTPGet.Port.String()))
		}
	}
	return errs
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
// every Secret volume to name a rendered Secret holding its items, and
// every directory the server writes to be under a mount, the data on a
// claim when persistence is on.
func (s *Set) checkVolumes(w Want) []error {
	sts := s.StatefulSets[0]
	kinds := map[string]string{}
	var errs []error
	for _, v := range sts.Spec.Template.Spec.Volumes {
		kinds[v.Name] = "volume"
		if v.Secret != nil {
			sec := s.secret(v.Secret.SecretName)
			if sec == nil {
				errs = append(errs, fmt.Errorf("volume %s: Secret %q is not rendered", v.Name, v.Secret.SecretName))
				continue
			}
			for _, it := range v.Secret.Items {
				if _, ok := sec.Data[it.Key]; !ok {
					errs = append(errs, fmt.Errorf("volume %s: Secret %s has no key %q", v.Name, sec.Name, it.Key))
				}
			}
		}
	}
	for _, pvc := range sts.Spec.VolumeClaimTemplates {
		if kinds[pvc.Name] != "" {
			errs = append(errs, fmt.Errorf("volumeClaimTemplate %s is also a volume", pvc.Name))
		}
		kinds[pvc.Name] = "claim"
	}
	if got := len(sts.Spec.VolumeClaimTemplates) > 0; got != w.Persistence {
		errs = append(errs, fmt.Errorf("volumeClaimTemplates: %v, want %v", got, w.Persistence))
	}
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
		case key != "ZOO_CONF_DIR" && w.Persistence && kinds[mount.Name] != "claim":
			errs = append(errs, fmt.Errorf("%s=%s is on volume %s, not on a persistent volumeClaimTemplate", key, dir, mount.Name))
		}
	}
	return errs
}

// checkEnv wants every variable the pods get to be one the image reads (or
// one another variable refers to), every Secret the env names to be
// rendered with its key, and ZOO_SERVERS to name the founding pods by
// their stable DNS names on the container's ports.
func (s *Set) checkEnv(w Want) []error {
	c := s.container()
	var errs []error
	known := envconfig.Known()
	refs := referenced(c.Env)
	var names []string
	for k := range s.configMap() {
		names = append(names, k)
	}
	for _, e := range c.Env {
		names = append(names, e.Name)
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			ref := e.ValueFrom.SecretKeyRef
			if sec := s.secret(ref.Name); sec == nil || sec.Data[ref.Key] == nil {
				errs = append(errs, fmt.Errorf("env %s: Secret %s with key %s is not rendered", e.Name, ref.Name, ref.Key))
			}
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
	for _, l := range strings.Fields(s.configMap()["ZOO_CFG_EXTRA"]) {
		if k, _, ok := strings.Cut(l, "="); !ok || k == "" {
			errs = append(errs, fmt.Errorf("ZOO_CFG_EXTRA: %q is not key=value", l))
		}
	}
	return append(errs, s.checkServers(w)...)
}

// checkServers wants server.N=<set>-<N-1>.<serviceName>.<ns>.svc.<domain>:<peer>:<election>;<client>
// for N = 1..founders, with the container's port numbers, and
// ZKRAFT_SERVER_LINE to follow the same pattern for any pod.
func (s *Set) checkServers(w Want) []error {
	sts := s.StatefulSets[0]
	lines := strings.Fields(s.configMap()["ZOO_SERVERS"])
	want := func(host string) string {
		return fmt.Sprintf("%s.%s.%s.svc.cluster.local:%d:%d;%d", host, sts.Spec.ServiceName, Namespace,
			s.portNumber("follower"), s.portNumber("election"), s.portNumber("client"))
	}
	var errs []error
	if len(lines) != w.Founders {
		errs = append(errs, fmt.Errorf("ZOO_SERVERS has %d lines, want %d founding servers", len(lines), w.Founders))
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
	line := false
	for _, e := range s.container().Env {
		if e.Name == "ZKRAFT_SERVER_LINE" {
			line = true
			if e.Value != want("$(POD_NAME)") {
				errs = append(errs, fmt.Errorf("ZKRAFT_SERVER_LINE is %q, want %q", e.Value, want("$(POD_NAME)")))
			}
		}
	}
	if !line {
		errs = append(errs, fmt.Errorf("no ZKRAFT_SERVER_LINE: pods beyond the founders could not join"))
	}
	return errs
}

// checkServiceMonitor wants the ServiceMonitor to select the metrics
// Service in the release's namespace and scrape a port it has.
func (s *Set) checkServiceMonitor() []error {
	var errs []error
	for _, sm := range s.ServiceMonitors {
		sel, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
		if err != nil || sel.Empty() {
			errs = append(errs, fmt.Errorf("ServiceMonitor %s: selector %v: %v", sm.Name, sm.Spec.Selector, err))
			continue
		}
		var selected []*corev1.Service
		for _, svc := range s.Services {
			if sel.Matches(labels.Set(svc.Labels)) {
				selected = append(selected, svc)
			}
		}
		if len(selected) != 1 || !slices.Contains(sm.Spec.NamespaceSelector.MatchNames, Namespace) {
			errs = append(errs, fmt.Errorf("ServiceMonitor %s selects %d Services in %v, want the metrics Service", sm.Name, len(selected), sm.Spec.NamespaceSelector.MatchNames))
			continue
		}
		if len(sm.Spec.Endpoints) == 0 {
			errs = append(errs, fmt.Errorf("ServiceMonitor %s: no endpoints", sm.Name))
		}
		for _, ep := range sm.Spec.Endpoints {
			found := false
			for _, p := range selected[0].Spec.Ports {
				found = found || (p.Name == ep.Port && p.TargetPort.String() == "metrics")
			}
			if !found || ep.Path != "/metrics" {
				errs = append(errs, fmt.Errorf("ServiceMonitor %s: endpoint %s%s is not Service %s's metrics port", sm.Name, ep.Port, ep.Path, selected[0].Name))
			}
		}
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

// portNumber is the number of a named container port, 0 when missing.
func (s *Set) portNumber(name string) int32 {
	p, _ := s.containerPort(name)
	return p.ContainerPort
}

func (s *Set) service(name string) *corev1.Service {
	for _, svc := range s.Services {
		if svc.Name == name {
			return svc
		}
	}
	return nil
}

func (s *Set) secret(name string) *corev1.Secret {
	for _, sec := range s.Secrets {
		if sec.Name == name {
			return sec
		}
	}
	return nil
}

// configMap is the ConfigMap's data.
func (s *Set) configMap() map[string]string { return s.ConfigMaps[0].Data }

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

func failf(format string, args ...any) []error { return []error{fmt.Errorf(format, args...)} }
