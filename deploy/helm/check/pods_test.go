package check

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkraft/zkraft/internal/testports"
)

// TestReleasesFormQuorum runs the three founding pods of the default
// render, and of the auth + TLS and the metrics value sets, as `zkserver
// container` processes, each with the environment the kubelet would give
// it (the ConfigMap, the env with the Secret's super password and
// $(POD_NAME) expanded, the Secrets' files where they are mounted), the
// pods' DNS names mapped to 127.0.0.1 and free ports, as deploy's
// TestStatefulSetScalesThreeToFive runs the plain manifests: they elect a
// leader (over quorum SASL and TLS in the second), answer the probes' GET
// /ready and /live on the AdminServer, and a write through one is read on
// another.
func TestReleasesFormQuorum(t *testing.T) {
	for _, vs := range []valueSet{valueSets[0], valueSets[2], valueSets[3]} {
		t.Run(vs.name, func(t *testing.T) { runRelease(t, render(t, vs.values)) })
	}
}

// runRelease runs the release's three founding pods and checks that they
// elect a leader, answer the probes and serve a write.
func runRelease(t *testing.T, s *Set) {
	t.Helper()
	r := &remap{t: t, ports: map[string]int{}}
	var pods []*proc
	for i := 0; i < 3; i++ {
		env, err := s.PodEnv(i)
		if err != nil {
			t.Fatal(err)
		}
		root := t.TempDir()
		if err := s.MountSecrets(root); err != nil {
			t.Fatal(err)
		}
		env = s.Rooted(env, root)
		own := env["ZKRAFT_SERVER_LINE"]
		if !strings.HasPrefix(own, env["HOSTNAME"]+".") {
			t.Fatalf("ZKRAFT_SERVER_LINE %q does not start with the pod's name", own)
		}
		env["ZOO_SERVERS"] = r.servers(env["ZOO_SERVERS"])
		env["ZKRAFT_SERVER_LINE"] = r.line(own)
		admin := freePort(t)
		env["ZOO_CFG_EXTRA"] += fmt.Sprintf(" clientPortAddress=127.0.0.1 admin.serverAddress=127.0.0.1 admin.serverPort=%d", admin)
		// The pods' other listeners on free ports too (the last of
		// duplicate keys wins).
		if strings.Contains(env["ZOO_CFG_EXTRA"], "secureClientPort=") {
			env["ZOO_CFG_EXTRA"] += fmt.Sprintf(" secureClientPortAddress=127.0.0.1 secureClientPort=%d", freePort(t))
		}
		if strings.Contains(env["ZOO_CFG_EXTRA"], "metricsProvider.httpPort=") {
			env["ZOO_CFG_EXTRA"] += fmt.Sprintf(" metricsProvider.httpHost=127.0.0.1 metricsProvider.httpPort=%d", freePort(t))
		}
		// Ten times faster than the chart's 2 s tick, for a quick test.
		env["ZOO_TICK_TIME"] = "200"
		pods = append(pods, &proc{name: env["HOSTNAME"], env: env, client: r.client(own), admin: fmt.Sprintf("127.0.0.1:%d", admin)})
	}
	bin := zkserver(t)
	for _, p := range pods {
		p.start(t, bin)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !elected(pods) {
		if time.Now().After(deadline) {
			t.Fatal("no leader with two followers within 30 s")
		}
		for _, p := range pods {
			if p.cmd.ProcessState != nil {
				t.Fatalf("%s exited: %s", p.name, p.cmd.ProcessState)
			}
		}
		time.Sleep(50 * time.Millisecond) // poll interval of the condition above
	}
	for _, p := range pods {
		for _, probe := range []string{"/ready", "/live"} {
			waitHTTP(t, "http://"+p.admin+probe, 10*time.Second)
		}
	}
	c0 := connect(t, pods[0].client)
	if _, err := c0.Create("/helm", []byte("chart"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	c2 := connect(t, pods[2].client)
	if _, err := c2.Sync("/helm"); err != nil {
		t.Fatal(err)
	}
	data, _, err := c2.Get("/helm")
	if err != nil || string(data) != "chart" {
		t.Fatalf("read on %s: %q, %v", pods[2].name, data, err)
	}
}

// proc is one `zkserver container` process.
type proc struct {
	name, client, admin string
	env                 map[string]string
	cmd                 *exec.Cmd
}

func (p *proc) start(t *testing.T, bin string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), p.name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ZOO_") && !strings.HasPrefix(kv, "ZKRAFT_") && !strings.HasPrefix(kv, "HOSTNAME=") && !strings.HasPrefix(kv, "SERVER_JVMFLAGS=") {
			env = append(env, kv)
		}
	}
	keys := make([]string, 0, len(p.env))
	for k := range p.env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+p.env[k])
	}
	p.cmd = exec.Command(bin, "container")
	p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = env, logFile, logFile
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { p.cmd.Wait(); logFile.Close(); close(exited) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-exited
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("log of %s (%s):\n%s", p.name, p.cmd.ProcessState, out)
		}
	})
}

// mode is srvr's Mode ("" while the server does not answer).
func (p *proc) mode() string {
	stats, _ := zk.FLWSrvr([]string{p.client}, time.Second)
	if len(stats) == 0 || stats[0].Error != nil {
		return ""
	}
	return stats[0].Mode.String()
}

// elected reports whether one process leads and the others follow.
func elected(pods []*proc) bool {
	leaders, followers := 0, 0
	for _, p := range pods {
		switch p.mode() {
		case "leader":
			leaders++
		case "follower":
			followers++
		}
	}
	return leaders == 1 && followers == len(pods)-1
}

// waitHTTP waits for a 200 from url.
func waitHTTP(t *testing.T, url string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %v %v", url, resp, err)
		}
		time.Sleep(50 * time.Millisecond) // poll interval of the probe
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

func connect(t *testing.T, addrs ...string) *zk.Conn {
	t.Helper()
	c, _, err := zk.Connect(addrs, 10*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// zkserver builds cmd/zkserver once, in the main module.
func zkserver(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zkraft-helm-check")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "zkserver")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/zkserver")
		cmd.Dir = "../../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/zkserver: %v: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// freePort is a loopback port that is free now, from the block of ports
// below the kernel's ephemeral range that this test process claims
// (internal/testports): a port from the ephemeral range (":0") can be
// taken by another process's outgoing connection before the pod binds it,
// which failed a run ("bind: address already in use" for /metrics).
func freePort(t *testing.T) int {
	t.Helper()
	return testports.Free(t)
}

// remap moves the pods' host names onto 127.0.0.1: each host:port a
// server line names gets its own free port, the same wherever it appears.
type remap struct {
	t     *testing.T
	ports map[string]int
}

func (r *remap) port(host, port string) string {
	key := host + ":" + port
	if _, ok := r.ports[key]; !ok {
		r.ports[key] = freePort(r.t)
	}
	return strconv.Itoa(r.ports[key])
}

// line remaps one "host:peer:election;client" value.
func (r *remap) line(v string) string {
	peer, client, _ := strings.Cut(v, ";")
	parts := strings.Split(peer, ":")
	host := parts[0]
	parts[0] = "127.0.0.1"
	parts[1], parts[2] = r.port(host, parts[1]), r.port(host, parts[2])
	return strings.Join(parts, ":") + ";" + r.port(host, client)
}

// servers remaps a ZOO_SERVERS value.
func (r *remap) servers(v string) string {
	var out []string
	for _, s := range strings.Fields(v) {
		key, val, _ := strings.Cut(s, "=")
		out = append(out, key+"="+r.line(val))
	}
	return strings.Join(out, " ")
}

// client is the remapped client address of a server line's host.
func (r *remap) client(v string) string {
	host, _, _ := strings.Cut(v, ":")
	_, client, _ := strings.Cut(v, ";")
	return "127.0.0.1:" + r.port(host, client)
}
