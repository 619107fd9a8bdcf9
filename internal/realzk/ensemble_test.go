package realzk

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// connect opens a go-zookeeper session on addr alone.
func connect(t *testing.T, addr string) *zk.Conn {
	t.Helper()
	c, events, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return c
			}
		case <-timeout:
			t.Fatalf("no session from %s within 10s", addr)
		}
	}
}

func TestEnsemble(t *testing.T) {
	if ok, reason := Available(); !ok {
		t.Skip(reason)
	}
	start := time.Now()
	e, err := StartEnsemble("", 3, Options{ForceSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop() })
	t.Logf("three-node ensemble with a leader after %v", time.Since(start).Round(time.Millisecond))
	dir, addrs, pids := e.Dir(), e.Addrs(), e.Pids()
	if len(addrs) != 3 || len(pids) != 3 {
		t.Fatalf("addrs %q, pids %v; want three of each", addrs, pids)
	}
	var modes []string
	for i, addr := range addrs {
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Errorf("member %d listens on %s, want 127.0.0.1", i+1, addr)
		}
		mode, err := Mode(addr, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		modes = append(modes, mode)
	}
	slices.Sort(modes)
	if !slices.Equal(modes, []string{"follower", "follower", "leader"}) {
		t.Errorf("modes %q, want one leader and two followers", modes)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "2", "zoo.cfg"))
	if err != nil || !strings.Contains(string(cfg), "forceSync=yes\n") || !strings.Contains(string(cfg), "server.3=127.0.0.1:") {
		t.Fatalf("member 2's zoo.cfg: %s %v", cfg, err)
	}

	// A write on one member is read on another once that one has synced.
	writer, reader := connect(t, addrs[0]), connect(t, addrs[2])
	if _, err := writer.Create("/across", []byte("members"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := reader.Sync("/across"); err != nil {
		t.Fatal(err)
	}
	data, _, err := reader.Get("/across")
	if err != nil || string(data) != "members" {
		t.Fatalf("get on member 3 = %q, %v; want the data written on member 1", data, err)
	}

	if err := e.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := e.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if err := groupGone(pid); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("dir %s not removed: %v", dir, err)
	}
}

func TestEnsembleTooSmall(t *testing.T) {
	if ok, reason := Available(); !ok {
		t.Skip(reason)
	}
	if _, err := StartEnsemble(t.TempDir(), 1, Options{}); err == nil || !strings.Contains(err.Error(), "at least 2") {
		t.Fatalf("StartEnsemble(1) = %v, want an error saying an ensemble needs 2 servers", err)
	}
}

// TestObserverConfig checks, without a JVM, the zoo.cfg of a voter and of
// an observer in a 3+2 ensemble.
func TestObserverConfig(t *testing.T) {
	ports := make([]int, 15)
	for i := range ports {
		ports[i] = 1000 + i
	}
	servers := serverLines(5, 2, ports)
	want := map[string]string{
		"server.1": "127.0.0.1:1001:1002",
		"server.3": "127.0.0.1:1007:1008",
		"server.4": "127.0.0.1:1010:1011:observer",
		"server.5": "127.0.0.1:1013:1014:observer",
	}
	for k, v := range want {
		if servers[k] != v {
			t.Errorf("%s=%s, want %s", k, servers[k], v)
		}
	}
	voter := string(ensembleConfig("/d", 1000, servers, false, Options{}))
	observer := string(ensembleConfig("/d", 1012, servers, true, Options{}))
	if strings.Contains(voter, "peerType") {
		t.Errorf("a voter's zoo.cfg names a peerType:\n%s", voter)
	}
	for _, line := range []string{"peerType=observer\n", "clientPort=1012\n", "server.5=127.0.0.1:1013:1014:observer\n", "server.2=127.0.0.1:1004:1005\n"} {
		if !strings.Contains(observer, line) {
			t.Errorf("the observer's zoo.cfg lacks %q:\n%s", line, observer)
		}
	}
}

// TestEnsembleObservers starts three voters and two observers and checks
// their srvr modes and that an observer serves writes.
func TestEnsembleObservers(t *testing.T) {
	if ok, reason := Available(); !ok {
		t.Skip(reason)
	}
	e, err := StartEnsembleObservers("", 3, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop() })
	addrs := e.Addrs()
	var modes []string
	for _, addr := range addrs {
		mode, err := Mode(addr, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		modes = append(modes, mode)
	}
	if modes[3] != "observer" || modes[4] != "observer" {
		t.Errorf("members 4 and 5 are %q, want observers", modes[3:])
	}
	slices.Sort(modes)
	if !slices.Equal(modes, []string{"follower", "follower", "leader", "observer", "observer"}) {
		t.Errorf("modes %q, want a leader, two followers and two observers", modes)
	}
	c := connect(t, addrs[4])
	if _, err := c.Create("/observed", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create through an observer: %v", err)
	}
}

func TestEnsembleObserversTooFewVoters(t *testing.T) {
	if ok, reason := Available(); !ok {
		t.Skip(reason)
	}
	if _, err := StartEnsembleObservers(t.TempDir(), 1, 2, Options{}); err == nil || !strings.Contains(err.Error(), "at least 2") {
		t.Fatalf("StartEnsembleObservers(1, 2) = %v, want an error saying an ensemble needs 2 voters", err)
	}
}
