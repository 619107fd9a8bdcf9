package realzk

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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
		if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process group %d still there after Stop: %v", pid, err)
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
