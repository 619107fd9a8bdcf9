package check

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

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

// PodEnv is the environment the kubelet gives pod ordinal: the ConfigMap
// (envFrom), then the container's env in order with $(VAR) references
// expanded, the pod name from the downward API and Secret values from
// the rendered Secrets.
func (s *Set) PodEnv(ordinal int) (map[string]string, error) {
	name := fmt.Sprintf("%s-%d", s.StatefulSets[0].Name, ordinal)
	env := map[string]string{"HOSTNAME": name}
	for k, v := range s.configMap() {
		env[k] = v
	}
	for _, e := range s.container().Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = varRef.ReplaceAllStringFunc(e.Value, func(ref string) string {
				if v, ok := env[ref[2:len(ref)-1]]; ok {
					return v
				}
				return ref // the kubelet leaves unknown references as they are
			})
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name":
			env[e.Name] = name
		case e.ValueFrom.SecretKeyRef != nil:
			sec := s.secret(e.ValueFrom.SecretKeyRef.Name)
			if sec == nil {
				return nil, fmt.Errorf("env %s: Secret %s is not rendered", e.Name, e.ValueFrom.SecretKeyRef.Name)
			}
			env[e.Name] = string(sec.Data[e.ValueFrom.SecretKeyRef.Key])
		default:
			return nil, fmt.Errorf("env %s: a valueFrom the check does not emulate", e.Name)
		}
	}
	return env, nil
}

// MountSecrets writes every Secret volume's files under root, at the
// container's mount paths (root + mountPath), as the kubelet would.
func (s *Set) MountSecrets(root string) error {
	vols := map[string]*corev1.SecretVolumeSource{}
	for _, v := range s.StatefulSets[0].Spec.Template.Spec.Volumes {
		if v.Secret != nil {
			vols[v.Name] = v.Secret
		}
	}
	for _, m := range s.container().VolumeMounts {
		v := vols[m.Name]
		if v == nil {
			continue
		}
		sec := s.secret(v.SecretName)
		if sec == nil {
			return fmt.Errorf("volume %s: Secret %s is not rendered", m.Name, v.SecretName)
		}
		files := map[string]string{}
		for k := range sec.Data {
			files[k] = k
		}
		if len(v.Items) > 0 {
			files = map[string]string{}
			for _, it := range v.Items {
				files[it.Key] = it.Path
			}
		}
		for key, p := range files {
			dst := filepath.Join(root, m.MountPath, p)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(dst, sec.Data[key], 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}

// Rooted moves the env's absolute paths (the directories, and the files
// ZOO_CFG_EXTRA names under the mounts) under root.
func (s *Set) Rooted(env map[string]string, root string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for _, key := range []string{"ZOO_CONF_DIR", "ZOO_DATA_DIR", "ZOO_DATA_LOG_DIR"} {
		out[key] = filepath.Join(root, env[key])
	}
	var extra []string
	for _, l := range strings.Fields(env["ZOO_CFG_EXTRA"]) {
		k, v, _ := strings.Cut(l, "=")
		if strings.HasPrefix(v, "/") && s.mountOf(v) != nil {
			v = filepath.Join(root, v)
		}
		extra = append(extra, k+"="+v)
	}
	out["ZOO_CFG_EXTRA"] = strings.Join(extra, " ")
	return out
}
