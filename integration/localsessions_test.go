package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// localSessionScenario drives one ensemble with localSessionsEnabled=true
// through raw clients and returns what each step answered, one line each,
// to be compared between zkraft and ZooKeeper 3.8: a new session on a
// follower is local (it writes persistent nodes, and no other server
// knows it), then it creates an ephemeral (upgraded, or refused with
// EPHEMERALONLOCALSESSION when upgrading is off), and its id is tried on
// the other follower.
func localSessionScenario(t *testing.T, leader string, followers []string) []string {
	t.Helper()
	var out []string
	log := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	a, err := connectRaw(followers[0], 10000)
	require.NoError(t, err)
	defer a.Close()
	id, passwd := a.Session.SessionID, a.Session.Passwd

	r, err := a.Call(wire.OpCreate, &wire.CreateRequest{Path: "/ls-persistent", Data: []byte("x"), ACL: wire.OpenACLUnsafe}, nil)
	require.NoError(t, err)
	log("local session creates a persistent node: %v", r.Hdr.Err)
	before := r.Hdr.Zxid
	b, err := connectRaw(followers[0], 10000)
	require.NoError(t, err)
	r, err = b.Call(wire.OpCloseSession, nil, nil)
	require.NoError(t, err)
	b.Close()
	r, err = a.Call(wire.OpExists, &wire.ExistsRequest{Path: "/ls-persistent"}, nil)
	require.NoError(t, err)
	log("opening and closing another local session takes no zxid: %v", r.Hdr.Zxid == before)
	log("the follower's mntr: %s", mntrSessions(t, followers[0]))
	log("other clients see it: %v", existsOn(t, leader, "/ls-persistent"))

	log("the local session on the other follower: %s", tryResume(t, followers[1], id, passwd))
	r, err = a.Call(wire.OpExists, &wire.ExistsRequest{Path: "/ls-persistent"}, nil)
	require.NoError(t, err)
	log("its own connection still works: %v", r.Hdr.Err)

	r, err = a.Call(wire.OpCreate, &wire.CreateRequest{Path: "/ls-ephemeral", ACL: wire.OpenACLUnsafe, Flags: wire.FlagEphemeral}, nil)
	require.NoError(t, err)
	log("ephemeral create on the local session: %v", r.Hdr.Err)
	log("the ephemeral exists for other clients: %v", existsOn(t, leader, "/ls-ephemeral"))
	log("the follower's mntr: %s", mntrSessions(t, followers[0]))
	if r.Hdr.Err == wire.CodeOK {
		log("the upgraded session on the other follower: %s", tryResume(t, followers[1], id, passwd))
	}
	return out
}

// tryResume hands session id to addr in a handshake: "resumed" or
// "expired" (a ConnectResponse with no session, as for any expired one).
func tryResume(t *testing.T, addr string, id int64, passwd []byte) string {
	t.Helper()
	c, err := dialRaw(addr)
	require.NoError(t, err)
	defer c.Close()
	resp, err := c.Handshake(wire.ConnectRequest{TimeOut: 10000, SessionID: id, Passwd: passwd})
	if err != nil {
		return "connection closed: " + err.Error()
	}
	if resp.SessionID == 0 || resp.TimeOut <= 0 {
		return "expired"
	}
	return "resumed"
}

// mntrSessions is mntr's local_sessions line of addr.
func mntrSessions(t *testing.T, addr string) string {
	t.Helper()
	out, err := realzk.FourLetterWord(addr, "mntr", 5*time.Second)
	require.NoError(t, err)
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "zk_local_sessions") {
			return strings.Join(strings.Fields(line), "=")
		}
	}
	return "no zk_local_sessions in " + out
}

// existsOn asks a fresh session on addr whether path exists.
func existsOn(t *testing.T, addr, path string) bool {
	t.Helper()
	c, err := connectRaw(addr, 10000)
	require.NoError(t, err)
	defer c.Close()
	r, err := c.Call(wire.OpExists, &wire.ExistsRequest{Path: path}, nil)
	require.NoError(t, err)
	return r.Hdr.Err == wire.CodeOK
}

// TestLocalSessionsLikeZooKeeper runs localSessionScenario on a zkraft
// ensemble and, when installed, on a ZooKeeper 3.8 ensemble with the same
// keys, with upgrading on, off and left to each side's default, and
// compares the transcripts.
func TestLocalSessionsLikeZooKeeper(t *testing.T) {
	for _, upgrading := range []string{"true", "false", ""} {
		t.Run(fmt.Sprintf("upgrading=%q", upgrading), func(t *testing.T) {
			c := StartCluster(t, 3, WithServerConfig(func(cfg *server.Config) {
				cfg.LocalSessionsEnabled = true
				if upgrading != "" {
					cfg.LocalSessionsUpgradingEnabled = upgrading == "true"
				}
			}))
			leader := c.WaitForLeader()
			var followers []string
			for i, s := range c.Servers {
				if i != leader {
					c.WaitForRole(i, "follower")
					followers = append(followers, s.Addr())
				}
			}
			got := localSessionScenario(t, c.Servers[leader].Addr(), followers)
			t.Logf("zkraft:\n%s", strings.Join(got, "\n"))
			if ok, reason := realzk.Available(); !ok {
				t.Skip("the comparison with ZooKeeper is skipped: " + reason)
			}
			opts := realzk.Options{ExtraConfig: map[string]string{"localSessionsEnabled": "true"}}
			if upgrading != "" { // unset: each side's default
				opts.ExtraConfig["localSessionsUpgradingEnabled"] = upgrading
			}
			zks, err := realzk.StartEnsemble(filepath.Join(t.TempDir(), "zk"), 3, opts)
			require.NoError(t, err)
			defer zks.Stop()
			var zkLeader string
			var zkFollowers []string
			for _, addr := range zks.Addrs() {
				mode, err := realzk.Mode(addr, 5*time.Second)
				require.NoError(t, err)
				if mode == "leader" {
					zkLeader = addr
				} else {
					zkFollowers = append(zkFollowers, addr)
				}
			}
			want := localSessionScenario(t, zkLeader, zkFollowers)
			t.Logf("ZooKeeper 3.8:\n%s", strings.Join(want, "\n"))
			require.Equal(t, want, got)
		})
	}
}

// TestNewClientReadsWhileDiskFullWithLocalSessions: with local sessions on,
// a server whose log disk is full still admits a new client, which reads:
// its session takes no log entry. Without them that session is a write,
// and the server refuses it.
func TestNewClientReadsWhileDiskFullWithLocalSessions(t *testing.T) {
	for _, local := range []bool{true, false} {
		t.Run(fmt.Sprintf("localSessionsEnabled=%v", local), func(t *testing.T) {
			disks := diskFaults(3)
			c := StartCluster(t, 3, WithDiskFaults(disks...), WithServerConfig(func(cfg *server.Config) {
				cfg.LocalSessionsEnabled = local
			}))
			leader := c.WaitForLeader()
			f := (leader + 1) % 3
			c.WaitForRole(f, "follower")
			lc, _ := c.Connect(t, c.Servers[leader].Addr())
			createEpoch(t, lc, "/before")
			// A majority without f may have committed it: f must hold it
			// before its disk fills, or it can never read it.
			_, before, err := lc.Exists("/before")
			require.NoError(t, err)
			waitCond(t, "the follower to apply /before", func() bool { return c.Servers[f].LastZxid() >= before.Czxid })
			disks[f].SetFull(true)
			createEpoch(t, lc, "/during") // an append reaches the full disk
			waitCond(t, "the follower to find its disk full", func() bool { return c.Servers[f].DiskState().Full })

			nc, err := connectRaw(c.Servers[f].Addr(), 10000)
			if !local {
				require.Error(t, err, "a new session is a write, and the disk is full")
				return
			}
			require.NoError(t, err, "a local session needs no log entry")
			defer nc.Close()
			r, err := nc.Call(wire.OpExists, &wire.ExistsRequest{Path: "/before"}, nil)
			require.NoError(t, err)
			require.Equal(t, wire.CodeOK, r.Hdr.Err)
			r, err = nc.Call(wire.OpCreate, &wire.CreateRequest{Path: "/refused", ACL: wire.OpenACLUnsafe}, nil)
			require.NoError(t, err)
			require.Equal(t, wire.CodeNotReadOnly, r.Hdr.Err, "writes are still refused")
		})
	}
}

// TestLocalSessionExpiresOnItsServer: a local session whose client goes
// silent expires on its server (mntr's local_sessions drops to 0), and a
// reconnect with its id then finds it expired, on that server too.
func TestLocalSessionExpiresOnItsServer(t *testing.T) {
	c := StartCluster(t, 3, WithServerConfig(func(cfg *server.Config) { cfg.LocalSessionsEnabled = true }))
	leader := c.WaitForLeader()
	addr := c.Servers[leader].Addr() // the leader's sessions are local too
	a, err := connectRaw(addr, 2000)
	require.NoError(t, err)
	id, passwd := a.Session.SessionID, a.Session.Passwd
	require.Equal(t, "zk_local_sessions=1", mntrSessions(t, addr))
	require.Equal(t, "resumed", tryResume(t, addr, id, passwd), "its own server resumes it")
	a.Close()
	waitCond(t, "the silent local session to expire", func() bool { return mntrSessions(t, addr) == "zk_local_sessions=0" })
	require.Equal(t, "expired", tryResume(t, addr, id, passwd))
}
