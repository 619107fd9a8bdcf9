package main

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// buildZkserver compiles cmd/zkserver into a temporary directory.
func buildZkserver(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("cannot build zkserver for the zkserver targets: go not on PATH")
	}
	bin := filepath.Join(t.TempDir(), "zkserver")
	out, err := exec.Command(goBin, "build", "-o", bin, "github.com/zkraft/zkraft/cmd/zkserver").CombinedOutput()
	if err != nil {
		t.Fatalf("go build zkserver: %v\n%s", err, out)
	}
	return bin
}

// running reports whether process pid exists.
func running(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// checkOwnProcesses checks that tg runs in n processes other than this one.
func checkOwnProcesses(t *testing.T, tg *target, n int) {
	t.Helper()
	if len(tg.addrs) != n || len(tg.pids) != n {
		t.Fatalf("addrs %q, pids %v; want %d of each", tg.addrs, tg.pids, n)
	}
	for _, pid := range tg.pids {
		if pid == os.Getpid() || !running(pid) {
			t.Errorf("pid %d: want a running process other than zkbench (%d)", pid, os.Getpid())
		}
	}
}

// benchBriefly runs each op against tg and checks that the bench roots
// are gone afterwards.
func benchBriefly(t *testing.T, tg *target, ops ...string) {
	t.Helper()
	for _, op := range ops {
		// A fresh JVM ensemble can complete no op in a 200 ms window on a
		// loaded machine (once in 20 runs): run windows until one has
		// ops, for up to 30 s.
		deadline := time.Now().Add(30 * time.Second)
		for {
			res, err := runBench(context.Background(), testOptions(t, op), tg.addrs)
			if err != nil {
				t.Fatal(err)
			}
			if res.Errors != 0 || res.Ops == 0 && time.Now().After(deadline) {
				t.Fatalf("%s: %d ops, %d errors (first: %s); want some ops and no errors", op, res.Ops, res.Errors, res.FirstError)
			}
			if res.Ops > 0 {
				break
			}
		}
	}
	if got := rootChildren(t, tg.addrs); !slices.Equal(got, []string{"zookeeper"}) {
		t.Errorf("after the runs / has %q, want the bench roots cleaned up", got)
	}
}

// stopAndCheckGone stops tg and checks that none of its processes is left.
func stopAndCheckGone(t *testing.T, tg *target) {
	t.Helper()
	tg.stop()
	for _, pid := range tg.pids {
		if running(pid) {
			t.Errorf("process %d still running after stop", pid)
		}
	}
}

func TestZkserverTargets(t *testing.T) {
	bin := buildZkserver(t)
	for _, c := range []struct {
		spec string
		n    int
		desc string
	}{
		{"zkserver", 1, "zkserver standalone, in memory, own process"},
		{"zkserver3", 3, "zkserver 3-node ensemble, durable, forceSync=yes, own processes"},
		{"zkserver3o2", 5, "zkserver 5-node ensemble, 3 voters and 2 observers, durable, forceSync=yes, own processes"},
	} {
		t.Run(c.spec, func(t *testing.T) {
			o := testOptions(t, "set")
			o.zkserver, o.forceSync = bin, true
			tg := startTestTarget(t, c.spec, o)
			if !strings.HasPrefix(tg.desc, c.desc) {
				t.Errorf("desc %q, want it to start with %q", tg.desc, c.desc)
			}
			checkOwnProcesses(t, tg, c.n)
			benchBriefly(t, tg, "create", "mix")
			if c.spec == "zkserver3o2" {
				checkRoleServers(t, tg, map[string]int{"leader": 1, "follower": 2, "observer": 2})
			}
			stopAndCheckGone(t, tg)
		})
	}
}

func TestZkserverConfig(t *testing.T) {
	standalone := string(zkserverConfig(2181, "", nil, true))
	for _, want := range []string{"clientPort=2181\n", "clientPortAddress=127.0.0.1\n", "maxClientCnxns=0\n", "4lw.commands.whitelist=*\n"} {
		if !strings.Contains(standalone, want) {
			t.Errorf("standalone zoo.cfg lacks %q:\n%s", want, standalone)
		}
	}
	if strings.Contains(standalone, "dataDir") || strings.Contains(standalone, "server.") {
		t.Errorf("standalone zoo.cfg must keep everything in memory:\n%s", standalone)
	}
	servers := map[int64]string{2: "127.0.0.1:3:4", 1: "127.0.0.1:1:2"}
	member := string(zkserverConfig(2182, "/d/1", servers, false))
	for _, want := range []string{"dataDir=/d/1\n", "forceSync=no\n", "initLimit=10\n", "server.1=127.0.0.1:1:2\nserver.2=127.0.0.1:3:4\n"} {
		if !strings.Contains(member, want) {
			t.Errorf("member zoo.cfg lacks %q:\n%s", want, member)
		}
	}
}

func TestZkserverNotFound(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-zkserver")
	var stdout, stderr bytes.Buffer
	code := realMain(context.Background(), []string{"-servers", "zkserver3", "-zkserver", missing}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "-zkserver "+missing) {
		t.Errorf("-zkserver %s: exit %d, stderr %q; want 1 and the path", missing, code, stderr.String())
	}

	t.Setenv("PATH", t.TempDir()) // nothing next to the test binary either
	stderr.Reset()
	code = realMain(context.Background(), []string{"-servers", "zkserver"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "zkserver binary not found") || !strings.Contains(stderr.String(), "$PATH") {
		t.Errorf("no zkserver: exit %d, stderr %q; want 1 and where zkbench looked", code, stderr.String())
	}
}

func TestZooKeeper3Ensemble(t *testing.T) {
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	tg := startTestTarget(t, "zookeeper3", testOptions(t, "set"))
	if tg.desc != "Apache ZooKeeper three-node ensemble, forceSync=no" {
		t.Errorf("desc %q", tg.desc)
	}
	checkOwnProcesses(t, tg, 3)
	benchBriefly(t, tg, "set", "get")
	stopAndCheckGone(t, tg)
}

func TestBuiltinShape(t *testing.T) {
	for _, c := range []struct {
		spec string
		kind string
		sh   shape
		ok   bool
	}{
		{"zkserver", "zkserver", shape{1, 0}, true},
		{"zkserver3", "zkserver", shape{3, 0}, true},
		{"zkserver5", "zkserver", shape{5, 0}, true},
		{"zookeeper3o2", "zookeeper", shape{3, 2}, true},
		{"zookeeper", "zookeeper", shape{1, 0}, true},
		{"zkserver4", "", shape{}, false},
		{"zkraft3", "", shape{}, false},
	} {
		kind, sh, ok := builtinShape(c.spec)
		if ok != c.ok || (ok && (kind != c.kind || sh != c.sh)) {
			t.Errorf("%s: %s %v %v, want %s %v %v", c.spec, kind, sh, ok, c.kind, c.sh, c.ok)
		}
		if ok && !builtins[c.spec] {
			t.Errorf("%s is not in builtinNames", c.spec)
		}
		if ok && c.kind == "zkserver" && zkserverName(sh) != c.spec {
			t.Errorf("zkserverName(%v) = %s, want %s", sh, zkserverName(sh), c.spec)
		}
	}
	for _, name := range builtinNames {
		if _, _, ok := builtinShape(name); !ok && !strings.HasPrefix(name, "zkraft") {
			t.Errorf("built-in %s has no shape", name)
		}
	}
	if d := shapeDesc(shape{3, 2}); d != "ensemble of three voters and two observers" {
		t.Errorf("shapeDesc(3+2) = %q", d)
	}
}

func TestZkserverObserverConfig(t *testing.T) {
	servers := map[int64]string{1: "127.0.0.1:1:2", 2: "127.0.0.1:3:4", 3: "127.0.0.1:5:6", 4: "127.0.0.1:7:8", 5: "127.0.0.1:9:10"}
	markObservers(servers, 2)
	if servers[3] != "127.0.0.1:5:6" || servers[4] != "127.0.0.1:7:8:observer" || servers[5] != "127.0.0.1:9:10:observer" {
		t.Errorf("server lines %v: want 4 and 5 observers", servers)
	}
	observer := string(zkserverMemberConfig(2185, "/d/5", servers, true, true))
	for _, want := range []string{"peerType=observer\n", "forceSync=yes\n", "server.5=127.0.0.1:9:10:observer\n", "server.1=127.0.0.1:1:2\n"} {
		if !strings.Contains(observer, want) {
			t.Errorf("observer zoo.cfg lacks %q:\n%s", want, observer)
		}
	}
	if voter := string(zkserverMemberConfig(2181, "/d/1", servers, true, false)); strings.Contains(voter, "peerType") {
		t.Errorf("voter zoo.cfg names a peerType:\n%s", voter)
	}
}

func TestModesReady(t *testing.T) {
	for _, c := range []struct {
		modes     []string
		observers int
		want      bool
	}{
		{[]string{"standalone"}, 0, true},
		{[]string{"follower", "leader", "follower"}, 0, true},
		{[]string{"follower", "looking", "follower"}, 0, false},
		{[]string{"leader", "leader", "follower"}, 0, false},
		{[]string{"follower", "follower", "leader", "observer", "observer"}, 2, true},
		{[]string{"follower", "follower", "leader", "observer", "not serving"}, 2, false},
		{[]string{"follower", "observer", "leader", "follower", "observer"}, 2, false},
		{[]string{"follower", "follower", "follower", "leader", "observer"}, 2, false},
	} {
		if got := modesReady(c.modes, c.observers); got != c.want {
			t.Errorf("modesReady(%v, %d) = %v, want %v", c.modes, c.observers, got, c.want)
		}
	}
}

// checkRoleServers runs one session on each of tg's servers and checks how
// many servers of each role the per-role figures count.
func checkRoleServers(t *testing.T, tg *target, want map[string]int) {
	t.Helper()
	o := testOptions(t, "set")
	o.sessions = len(tg.addrs)
	res, err := runBench(context.Background(), o, tg.addrs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, r := range res.ByRole {
		got[r.Role] = r.Servers
	}
	if !maps.Equal(got, want) {
		t.Errorf("servers by role %v, want %v", got, want)
	}
}
