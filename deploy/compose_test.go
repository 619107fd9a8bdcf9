package deploy_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// composeFile is the subset of the Compose file format the test reads.
type composeFile struct {
	Services map[string]struct {
		Image       string    `yaml:"image"`
		Hostname    string    `yaml:"hostname"`
		Environment yaml.Node `yaml:"environment"`
	} `yaml:"services"`
}

// environment reads a service's environment in either Compose form: a
// mapping, or a list of NAME=value.
func environment(t *testing.T, n yaml.Node) map[string]string {
	t.Helper()
	env := map[string]string{}
	switch n.Kind {
	case yaml.MappingNode:
		var m map[string]string
		require.NoError(t, n.Decode(&m))
		return m
	case yaml.SequenceNode:
		var list []string
		require.NoError(t, n.Decode(&list))
		for _, kv := range list {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
	}
	return env
}

// TestComposeEnsembleFormsAQuorum runs deploy/compose/docker-compose.yml's
// three services without Docker: each service's environment goes to a
// `zkserver container` process (the image's entrypoint), with host names
// moved to 127.0.0.1 and ports to free ones. They must elect a leader,
// replicate a write and pass the image's health check.
func TestComposeEnsembleFormsAQuorum(t *testing.T) {
	raw, err := os.ReadFile("compose/docker-compose.yml")
	require.NoError(t, err)
	var f composeFile
	require.NoError(t, yaml.Unmarshal(raw, &f))
	require.Len(t, f.Services, 3)
	names := make([]string, 0, 3)
	for name := range f.Services {
		names = append(names, name)
	}
	sort.Strings(names)

	r := newRemap(t)
	var procs []*proc
	for _, name := range names {
		svc := f.Services[name]
		require.Equal(t, "ghcr.io/zkraft/zkraft", svc.Image, "only the image name differs from the official example")
		env := environment(t, svc.Environment)
		dir := t.TempDir()
		env["ZOO_SERVERS"] = r.servers(env["ZOO_SERVERS"])
		env["ZOO_CONF_DIR"], env["ZOO_DATA_DIR"], env["ZOO_DATA_LOG_DIR"] = filepath.Join(dir, "conf"), filepath.Join(dir, "data"), filepath.Join(dir, "datalog")
		env["ZOO_CFG_EXTRA"] = strings.TrimSpace(env["ZOO_CFG_EXTRA"] + " " + loopbackExtra(t))
		env["HOSTNAME"] = svc.Hostname
		p := &proc{name: name, env: env, client: r.client(svc.Hostname + ":x:y;2181")}
		p.start(t)
		procs = append(procs, p)
	}
	for _, p := range procs {
		p.waitLog(t, "msg=serving", 1, 30*time.Second)
	}
	waitModes(t, procs, 30*time.Second)

	c1 := connect(t, procs[0].client)
	_, err = c1.Create("/compose", []byte("up"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	c3 := connect(t, procs[2].client)
	_, err = c3.Sync("/compose")
	require.NoError(t, err)
	data, _, err := c3.Get("/compose")
	require.NoError(t, err)
	require.Equal(t, "up", string(data))

	for _, p := range procs {
		out, err := exec.Command(zkserverBin(t), "healthcheck", filepath.Join(p.env["ZOO_CONF_DIR"], "zoo.cfg")).CombinedOutput()
		require.NoError(t, err, "healthcheck of %s: %s", p.name, out)
		require.Contains(t, string(out), `"ready" : true`)
		myid, err := os.ReadFile(filepath.Join(p.env["ZOO_DATA_DIR"], "myid"))
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("%s\n", p.env["ZOO_MY_ID"]), string(myid))
	}
}
