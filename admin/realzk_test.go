package admin

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/realzk"
)

// These tests run the same workload on Apache ZooKeeper 3.8 (the Debian
// package, with its AdminServer on) and on zkraft, then compare every
// command's JSON shape: keys, nesting, value types.

func requireRealZK(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts Apache ZooKeeper; skipped with -short")
	}
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
}

// dialZK connects a go-zookeeper client to addr and waits for its session.
func dialZK(t *testing.T, addr string) *zk.Conn {
	t.Helper()
	c, events, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return c
			}
		case <-deadline:
			t.Fatalf("no session on %s", addr)
		}
	}
}

// waitAdmin waits until the AdminServer at base answers ruok.
func waitAdmin(t *testing.T, base string) {
	t.Helper()
	require.Eventually(t, func() bool {
		resp, err := httpClient.Get(base + "ruok")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "ZooKeeper's AdminServer on %s", base)
}

// compareWithZooKeeper GETs every command and alias from both AdminServers
// and compares the answers' shapes.
func compareWithZooKeeper(t *testing.T, zkBase, ourBase string) {
	t.Helper()
	for _, c := range commands {
		for _, name := range c.names {
			want, got := getJSON(t, zkBase+name), getJSON(t, ourBase+name)
			switch c.names[0] {
			case "system_properties":
				require.NotEmpty(t, got)
			case "monitor":
				compareMonitor(t, got, want)
			case "server_stats", "stats", "hash":
				require.Equal(t, keys(want), keys(got), name)
			default:
				require.Equal(t, shape(want), shape(got), name)
			}
		}
	}
	for _, name := range []string{"nosuchcmd", "vote"} {
		require.Equal(t, getJSON(t, zkBase+name), getJSON(t, ourBase+name), name)
	}
	for _, base := range []string{zkBase, ourBase} {
		status, _, _ := fetch(t, http.MethodPost, base+"ruok", strings.NewReader("x"))
		require.Equal(t, http.StatusMethodNotAllowed, status, base)
	}
	_, _, zkLinks := fetch(t, http.MethodGet, strings.TrimSuffix(zkBase, "/"), nil)
	_, _, ourLinks := fetch(t, http.MethodGet, strings.TrimSuffix(ourBase, "/"), nil)
	ours := strings.Split(string(ourLinks), "\n")
	for _, line := range strings.Split(strings.TrimSpace(string(zkLinks)), "\n") {
		require.True(t, slices.Contains(ours, strings.TrimSpace(line)), "link %q", line)
	}
}

func TestAgainstRealZooKeeperStandalone(t *testing.T) {
	requireRealZK(t)
	real, err := realzk.Start("", realzk.Options{AdminServer: true})
	require.NoError(t, err)
	t.Cleanup(func() { real.Stop() })
	zkBase := "http://" + real.AdminAddr() + "/commands/"
	workload(t, dialZK(t, real.Addr()), dialZK(t, real.Addr()))
	waitAdmin(t, zkBase)
	compareWithZooKeeper(t, zkBase, standalone(t))
}

func TestAgainstRealZooKeeperEnsemble(t *testing.T) {
	requireRealZK(t)
	real, err := realzk.StartEnsemble("", 3, realzk.Options{AdminServer: true})
	require.NoError(t, err)
	t.Cleanup(func() { real.Stop() })
	ours := integration.StartCluster(t, 3)
	ourLeader := ours.WaitForLeader()
	ourFollower := (ourLeader + 1) % 3

	var zkLeader, zkFollower int
	for i, addr := range real.Addrs() {
		mode, err := realzk.Mode(addr, 5*time.Second)
		require.NoError(t, err)
		if mode == "leader" {
			zkLeader = i
		}
	}
	zkFollower = (zkLeader + 1) % 3
	for _, conns := range [][2]*zk.Conn{
		{dialZK(t, real.Addrs()[zkFollower]), dialZK(t, real.Addrs()[zkFollower])},
		{dialZK(t, ours.Servers[ourFollower].Addr()), dialZK(t, ours.Servers[ourFollower].Addr())},
	} {
		workload(t, conns[0], conns[1])
	}
	for _, pair := range [][2]int{{zkLeader, ourLeader}, {zkFollower, ourFollower}} {
		zkBase := "http://" + real.AdminAddrs()[pair[0]] + "/commands/"
		waitAdmin(t, zkBase)
		compareWithZooKeeper(t, zkBase, startAdmin(t, ours.Servers[pair[1]], Options{})+"/commands/")
	}
}
