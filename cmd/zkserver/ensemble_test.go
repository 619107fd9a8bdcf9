package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// proc is one zkserver process of a test ensemble.
type proc struct {
	cfg     string
	addr    string
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd has exited
}

// start runs the process with its log in a file that the test prints
// if it fails, so a server that never listens says why.
func (p *proc) start(t *testing.T, bin string) {
	t.Helper()
	p.logPath = filepath.Join(t.TempDir(), "zkserver.log")
	logFile, err := os.Create(p.logPath)
	require.NoError(t, err)
	cmd, exited := exec.Command(bin, p.cfg), make(chan struct{})
	cmd.Stdout, cmd.Stderr = logFile, logFile
	require.NoError(t, cmd.Start())
	go func() { cmd.Wait(); logFile.Close(); close(exited) }()
	p.cmd, p.exited = cmd, exited
	logPath, addr := p.logPath, p.addr
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("log of the server on %s (%s):\n%s", addr, cmd.ProcessState, out)
		}
	})
}

// mode asks the process's srvr for its Mode line ("" while it does not answer).
func (p *proc) mode() string {
	stats, _ := zk.FLWSrvr([]string{p.addr}, time.Second)
	if len(stats) == 0 || stats[0].Error != nil {
		return ""
	}
	return stats[0].Mode.String()
}

// servedWithin bounds untilServed: the time a three-process ensemble
// with tickTime=200 may take, on a loaded machine, to elect a leader
// (initLimit and syncLimit are 10 and 5 ticks) and to let every follower
// synchronise, with room for the machine's stalls.
const servedWithin = 60 * time.Second

// untilServed retries op while the client finds no server that serves it
// (zk.ErrNoServer: every server refused or was down) or lost the one it
// had (zk.ErrConnectionClosed), and fails the test on any other error or
// when servedWithin passes.
func untilServed(t *testing.T, what string, op func() error) {
	t.Helper()
	deadline := time.Now().Add(servedWithin)
	for {
		err := op()
		if err == nil {
			return
		}
		if !errors.Is(err, zk.ErrNoServer) && !errors.Is(err, zk.ErrConnectionClosed) || time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond) // retry interval of the condition above
	}
}

// kill stops the process with SIGKILL and waits for it to exit.
func (p *proc) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	<-p.exited
}

// errPortTaken is what waitUp reports when another process bound one of
// the server's ports between FreePort and the server's own bind.
var errPortTaken = errors.New("a port was taken by another process")

// waitUp waits until the process logs that it serves clients, or reports
// why it exited. (A dial would not do: if another process took the port,
// the dial reaches that process.)
func (p *proc) waitUp() error {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := os.ReadFile(p.logPath)
		if strings.Contains(string(out), "msg=serving") {
			return nil
		}
		select {
		case <-p.exited:
			out, _ := os.ReadFile(p.logPath)
			if strings.Contains(string(out), "address already in use") {
				return errPortTaken
			}
			return fmt.Errorf("server for %s exited before serving on %s (%s)", p.cfg, p.addr, p.cmd.ProcessState)
		case <-time.After(5 * time.Millisecond): // poll interval of the log check above
		}
	}
	return fmt.Errorf("server for %s did not serve on %s within 20s", p.cfg, p.addr)
}

// startEnsemble starts a three-process ensemble and waits until every
// process accepts clients. The ports are picked free but are not held,
// so if another process takes one first it starts over with new ones.
func startEnsemble(t *testing.T, bin string) []*proc {
	t.Helper()
	return startEnsembleWith(t, bin, false)
}

// startEnsembleWith is startEnsemble, with the membership in a dynamic
// config file (as ZooKeeper 3.5+ keeps it with reconfigEnabled) when
// dynamic is set.
func startEnsembleWith(t *testing.T, bin string, dynamic bool) []*proc {
	t.Helper()
	for attempt := 1; ; attempt++ {
		procs := launchEnsemble(t, bin, dynamic)
		err := waitAllUp(procs)
		if err == nil {
			return procs
		}
		for _, p := range procs {
			p.cmd.Process.Kill()
			<-p.exited
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("attempt %d: %v; starting over on new ports", attempt, err)
	}
}

func waitAllUp(procs []*proc) error {
	for _, p := range procs {
		if err := p.waitUp(); err != nil {
			return err
		}
	}
	return nil
}

// launchEnsemble writes three zoo.cfg files and myid files, as for a
// ZooKeeper ensemble on one machine, and starts three zkserver processes.
// With dynamic, the server lines (with their client ports, as ZooKeeper
// writes them) go in one zoo.cfg.dynamic.100000000 that every zoo.cfg
// names.
func launchEnsemble(t *testing.T, bin string, dynamic bool) []*proc {
	t.Helper()
	dir := t.TempDir()
	var servers strings.Builder
	var procs []*proc
	ports := []int{freePort(t), freePort(t), freePort(t)}
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&servers, "server.%d=127.0.0.1:%d:%d", i, freePort(t), freePort(t))
		if dynamic {
			fmt.Fprintf(&servers, ":participant;127.0.0.1:%d", ports[i-1])
		}
		servers.WriteString("\n")
	}
	members := servers.String()
	if dynamic {
		file := filepath.Join(dir, "zoo.cfg.dynamic.100000000")
		require.NoError(t, os.WriteFile(file, []byte(members), 0o644)) // the version is the name's
		members = "reconfigEnabled=true\ndynamicConfigFile=" + file + "\n"
	}
	for i := 1; i <= 3; i++ {
		data := filepath.Join(dir, fmt.Sprint(i))
		require.NoError(t, os.MkdirAll(data, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(data, "myid"), []byte(fmt.Sprintf("%d\n", i)), 0o644))
		port := ports[i-1]
		cfg := writeCfg(t, fmt.Sprintf("tickTime=200\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n4lw.commands.whitelist=*\n%s",
			data, port, members))
		p := &proc{cfg: cfg, addr: fmt.Sprintf("127.0.0.1:%d", port)}
		p.start(t, bin)
		procs = append(procs, p)
	}
	return procs
}

// leaderOf waits until exactly one process reports Mode leader.
func leaderOf(t *testing.T, procs []*proc) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		leader, followers := -1, 0
		for i, p := range procs {
			switch p.mode() {
			case "leader":
				leader = i
			case "follower":
				followers++
			}
		}
		if leader >= 0 && followers == len(procs)-1 {
			return leader
		}
		time.Sleep(20 * time.Millisecond) // poll interval of the condition above
	}
	t.Fatal("the ensemble elected no leader within 30s")
	return -1
}

func TestThreeProcessEnsembleSurvivesLeaderSIGKILL(t *testing.T) {
	bin := buildServer(t)
	procs := startEnsemble(t, bin)
	var addrs []string
	for _, p := range procs {
		addrs = append(addrs, p.addr)
	}
	leader := leaderOf(t, procs)
	c, _, err := zk.Connect(addrs, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	defer c.Close()
	acl := zk.WorldACL(zk.PermAll)
	for i := 0; i < 50; i++ {
		_, err := c.Create(fmt.Sprintf("/before-%02d", i), nil, 0, acl)
		require.NoError(t, err)
	}

	procs[leader].kill(t)
	live := append(append([]*proc{}, procs[:leader]...), procs[leader+1:]...)
	leaderOf(t, live)
	for i := 0; i < 50; i++ {
		// The client may still be looking for a server that serves it: a
		// follower refuses clients until it has synchronised with the new
		// leader, which on a loaded machine takes a while.
		path, tries := fmt.Sprintf("/after-%02d", i), 0
		untilServed(t, "create "+path, func() error {
			_, err := c.Create(path, nil, 0, acl)
			if tries++; tries > 1 && errors.Is(err, zk.ErrNodeExists) {
				return nil // an earlier try landed, its reply was lost
			}
			return err
		})
	}

	// The killed server comes back from its dataDir and catches up.
	procs[leader].start(t, bin)
	require.NoError(t, procs[leader].waitUp())
	leaderOf(t, procs)
	back, _, err := zk.Connect([]string{procs[leader].addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	defer back.Close()
	// srvr says follower before the server has synchronised and serves
	// clients; until it does, it refuses them.
	untilServed(t, "sync on the restarted server", func() error { _, err := back.Sync("/"); return err })
	kids, _, err := back.Children("/")
	require.NoError(t, err)
	require.Len(t, kids, 101, "100 nodes plus /zookeeper, none lost")
}

// TestEnsembleFromDynamicConfigFile: zoo.cfg files that keep the
// membership in a dynamicConfigFile, as a ZooKeeper 3.5+ ensemble with
// reconfigEnabled has them, start an ensemble (they once started three
// standalone servers): one leader, two followers, a write seen on every
// member, and /zookeeper/config with the version of the file's name.
func TestEnsembleFromDynamicConfigFile(t *testing.T) {
	bin := buildServer(t)
	procs := startEnsembleWith(t, bin, true)
	leaderOf(t, procs)
	c, _, err := zk.Connect([]string{procs[0].addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Create("/dynamic", []byte("x"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	for _, p := range procs {
		other, _, err := zk.Connect([]string{p.addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
		require.NoError(t, err)
		_, err = other.Sync("/dynamic")
		require.NoError(t, err)
		data, _, err := other.Get("/dynamic")
		require.NoError(t, err, p.addr)
		require.Equal(t, "x", string(data))
		cfg, _, err := other.Get("/zookeeper/config")
		require.NoError(t, err)
		require.Equal(t, 3, strings.Count(string(cfg), ":participant;"), "%s", cfg)
		require.True(t, strings.HasSuffix(string(cfg), "\nversion=100000000"), "%s", cfg)
		other.Close()
	}
}
