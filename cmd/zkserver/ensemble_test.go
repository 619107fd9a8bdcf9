package main

import (
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
	cfg  string
	addr string
	cmd  *exec.Cmd
}

func (p *proc) start(t *testing.T, bin string) {
	t.Helper()
	p.cmd = exec.Command(bin, p.cfg)
	require.NoError(t, p.cmd.Start())
	cmd := p.cmd
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
}

// mode asks the process's srvr for its Mode line ("" while it does not answer).
func (p *proc) mode() string {
	stats, _ := zk.FLWSrvr([]string{p.addr}, time.Second)
	if len(stats) == 0 || stats[0].Error != nil {
		return ""
	}
	return stats[0].Mode.String()
}

// startEnsemble writes three zoo.cfg files and myid files, as for a
// ZooKeeper ensemble on one machine, and starts three zkserver processes.
func startEnsemble(t *testing.T, bin string) []*proc {
	t.Helper()
	dir := t.TempDir()
	var servers strings.Builder
	var procs []*proc
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&servers, "server.%d=127.0.0.1:%d:%d\n", i, freePort(t), freePort(t))
	}
	for i := 1; i <= 3; i++ {
		data := filepath.Join(dir, fmt.Sprint(i))
		require.NoError(t, os.MkdirAll(data, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(data, "myid"), []byte(fmt.Sprintf("%d\n", i)), 0o644))
		port := freePort(t)
		cfg := writeCfg(t, fmt.Sprintf("tickTime=200\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n4lw.commands.whitelist=*\n%s",
			data, port, servers.String()))
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
		waitListening(t, p.addr)
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

	require.NoError(t, procs[leader].cmd.Process.Signal(syscall.SIGKILL))
	procs[leader].cmd.Wait()
	live := append(append([]*proc{}, procs[:leader]...), procs[leader+1:]...)
	leaderOf(t, live)
	for i := 0; i < 50; i++ {
		_, err := c.Create(fmt.Sprintf("/after-%02d", i), nil, 0, acl)
		require.NoError(t, err, "writes continue after the leader's SIGKILL")
	}

	// The killed server comes back from its dataDir and catches up.
	procs[leader].start(t, bin)
	waitListening(t, procs[leader].addr)
	leaderOf(t, procs)
	back, _, err := zk.Connect([]string{procs[leader].addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	defer back.Close()
	_, err = back.Sync("/")
	require.NoError(t, err)
	kids, _, err := back.Children("/")
	require.NoError(t, err)
	require.Len(t, kids, 101, "100 nodes plus /zookeeper, none lost")
}
