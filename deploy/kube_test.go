package deploy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// kubeEnv builds the environment the kubelet gives StatefulSet pod
// ordinal from deploy/kubernetes: the ConfigMap (envFrom), then the
// container's env in order with $(VAR) references expanded, the pod name
// from the downward API and password as the Secret's value.
type kubeEnv struct {
	configMap map[string]string
	env       []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			FieldRef *struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
			SecretKeyRef    *struct{ Name, Key string } `yaml:"secretKeyRef"`
			ConfigMapKeyRef *struct{ Name, Key string } `yaml:"configMapKeyRef"`
		} `yaml:"valueFrom"`
	}
	setName string
}

func readKubeEnv(t *testing.T) kubeEnv {
	t.Helper()
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	raw, err := os.ReadFile("kubernetes/configmap.yaml")
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(raw, &cm))
	var sts struct {
		Metadata struct{ Name string } `yaml:"metadata"`
		Spec     struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Env any `yaml:"env"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	raw, err = os.ReadFile("kubernetes/statefulset.yaml")
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(raw, &sts))
	k := kubeEnv{configMap: cm.Data, setName: sts.Metadata.Name}
	envYAML, err := yaml.Marshal(sts.Spec.Template.Spec.Containers[0].Env)
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(envYAML, &k.env))
	return k
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// pod is the environment of pod ordinal, before any remapping.
func (k kubeEnv) pod(t *testing.T, ordinal int, password string) map[string]string {
	t.Helper()
	name := fmt.Sprintf("%s-%d", k.setName, ordinal)
	env := map[string]string{"HOSTNAME": name}
	for key, v := range k.configMap {
		env[key] = v
	}
	for _, e := range k.env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = varRef.ReplaceAllStringFunc(e.Value, func(ref string) string {
				if v, ok := env[ref[2:len(ref)-1]]; ok {
					return v
				}
				return ref // the kubelet leaves unknown references as they are
			})
		case e.ValueFrom.FieldRef != nil:
			require.Equal(t, "metadata.name", e.ValueFrom.FieldRef.FieldPath)
			env[e.Name] = name
		case e.ValueFrom.SecretKeyRef != nil:
			env[e.Name] = password
		default:
			t.Fatalf("env %s: valueFrom the test does not emulate", e.Name)
		}
	}
	return env
}

// loopbackPod remaps a pod's environment onto this machine: server lines
// to 127.0.0.1 and free ports, the directories into dir.
func loopbackPod(t *testing.T, r *remap, env map[string]string, dir string) *proc {
	t.Helper()
	name := env["HOSTNAME"]
	env["ZOO_SERVERS"] = r.servers(env["ZOO_SERVERS"])
	own := env["ZKRAFT_SERVER_LINE"]
	require.True(t, strings.HasPrefix(own, name+"."), "ZKRAFT_SERVER_LINE starts with the pod's name: %q", own)
	env["ZKRAFT_SERVER_LINE"] = r.line(own)
	for _, key := range []string{"ZOO_CONF_DIR", "ZOO_DATA_DIR", "ZOO_DATA_LOG_DIR"} {
		require.True(t, strings.HasPrefix(env[key], "/"), key)
		env[key] = filepath.Join(dir, env[key])
	}
	env["ZOO_CFG_EXTRA"] = strings.TrimSpace(env["ZOO_CFG_EXTRA"] + " " + loopbackExtra(t))
	// Ten times faster than the manifest's 2 s tick, for a quick test.
	env["ZOO_TICK_TIME"] = "200"
	return &proc{name: name, env: env, client: r.client(own)}
}
