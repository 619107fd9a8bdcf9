package integration

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/server"
)

// kazooLocalSessionsScript drives kazoo against an ensemble with local
// sessions on. argv: the first server's address, the second's. It prints
// one line per step; at "move" it waits for a line on stdin (the test
// stops the first server meanwhile), then goes on on the second.
const kazooLocalSessionsScript = `
import sys, threading
import kazoo.protocol.connection as connection
from kazoo.client import KazooClient, KazooState

# kazoo raises RuntimeError("Invalid error code") on a code it does not
# know, in its connection thread: name it first.
class Codes(dict):
    def __missing__(self, code):
        say("unknown error code", code)
        return lambda: RuntimeError("invalid error code %d" % code)
connection.EXCEPTIONS = Codes(connection.EXCEPTIONS)

first, second = sys.argv[1], sys.argv[2]

def say(*a):
    print(*a, flush=True)

def local_sessions(c):
    for line in c.command(b"mntr").splitlines():
        if line.startswith("zk_local_sessions"):
            return line.split()[1]
    return "none"

states = []
c = KazooClient(hosts=first + "," + second, randomize_hosts=False, timeout=15)
c.add_listener(lambda s: states.append(s))
c.start(timeout=15)
sid = c.client_id[0]
say("connected", c.connected)
say("first server's local sessions", local_sessions(c))

c.create("/kls", b"v1")
data, stat = c.get("/kls")
say("get", data.decode(), stat.version)
c.set("/kls", b"v2")
data, stat = c.get("/kls")
say("after set", data.decode(), stat.version)

fired = threading.Event()
events = []
def watch(ev):
    events.append(ev)
    fired.set()
c.get("/kls", watch=watch)
other = KazooClient(hosts=second, timeout=15)
other.start(timeout=15)
other.set("/kls", b"v3")
say("watch fired", fired.wait(15), events[0].type if events else None, events[0].path if events else None)
other.stop()
other.close()
say("still local before the ephemeral", local_sessions(c))

c.create_async("/kls-eph", b"e", ephemeral=True).get(timeout=30)
say("ephemeral owner is this session", c.exists("/kls-eph").owner_session_id == sid)
say("first server's local sessions after the upgrade", local_sessions(c))

say("move")
sys.stdin.readline()
reconnected = threading.Event()
def wait_connected(s):
    if s == KazooState.CONNECTED:
        reconnected.set()
        return True
    return False
def on_second():
    # The connection thread may close the socket under us (the first
    # server is going away): a closed socket is not on the second server.
    try:
        s = c._connection._socket
        return c.connected and s is not None and s.getpeername()[1] == int(second.rsplit(":", 1)[1])
    except OSError:
        return False
if on_second():
    reconnected.set()
c.add_listener(wait_connected)
say("reconnected", reconnected.wait(30))
peer = c._connection._socket.getpeername()
say("on the second server", "%s:%d" % (peer[0], peer[1]) == second)
say("same session", c.client_id[0] == sid)
say("session lost", KazooState.LOST in states)
say("ephemeral still there", c.exists("/kls-eph") is not None)
data, _ = c.get("/kls")
say("reads", data.decode())
c.set("/kls", b"v4")
c.delete("/kls-eph")
say("writes and deletes", c.get("/kls")[0].decode(), c.exists("/kls-eph") is None)
c.stop()
c.close()
say("done")
`

// kazooLocalSessionsWant is the script's transcript, on zkraft and on
// ZooKeeper 3.8.
var kazooLocalSessionsWant = []string{
	"connected True",
	"first server's local sessions 1",
	"get v1 0",
	"after set v2 1",
	"watch fired True CHANGED /kls",
	"still local before the ephemeral 1",
	"ephemeral owner is this session True",
	"first server's local sessions after the upgrade 0",
	"move",
	"reconnected True",
	"on the second server True",
	"same session True",
	"session lost False",
	"ephemeral still there True",
	"reads v3",
	"writes and deletes v4 True",
	"done",
}

// runKazooLocalSessions runs kazooLocalSessionsScript with its client on
// first, then second; stopFirst stops the first server at "move".
func runKazooLocalSessions(t *testing.T, py, first, second string, stopFirst func()) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", kazooLocalSessionsScript, first, second)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if sc.Text() == "move" {
			stopFirst()
			io.WriteString(stdin, "go\n")
		}
	}
	err = cmd.Wait()
	t.Logf("kazoo:\n%s", strings.Join(lines, "\n"))
	require.NoError(t, err, "kazoo script: %s", stderr.String())
	return lines
}

// TestKazooLocalSessions runs kazoo's basic operations against a
// three-server ensemble with localSessionsEnabled=true, its client on a
// follower: its session starts local on its server (mntr's
// zk_local_sessions is 1), creates, reads and writes persistent nodes,
// gets a watch fired by a client on the other follower, is upgraded by
// its first ephemeral create (the server's local sessions drop to 0), and
// after its server stops it reconnects to the other follower with the
// same session, never LOST, its ephemeral intact. When ZooKeeper 3.8 is
// installed, the same script runs against a ZooKeeper ensemble with the
// same keys and must print the same. Both set localSessionsUpgradingEnabled
// explicitly: ZooKeeper 3.8's QuorumPeerConfig defaults it to false, and
// then refuses kazoo's ephemeral create with EPHEMERALONLOCALSESSION
// (-120, a code kazoo does not know).
func TestKazooLocalSessions(t *testing.T) {
	py, ok := kazooPythonOrSkipReason()
	if !ok {
		t.Skip("python3 with kazoo not found (apt-get install -y python3-kazoo)")
	}
	c := StartCluster(t, 3, WithServerConfig(func(cfg *server.Config) {
		cfg.LocalSessionsEnabled = true
		cfg.LocalSessionsUpgradingEnabled = true
		cfg.MaxSessionTimeout = 20 * time.Second
	}))
	leader := c.WaitForLeader()
	var followers []int
	for i := range c.Servers {
		if i != leader {
			c.WaitForRole(i, "follower")
			followers = append(followers, i)
		}
	}
	first, second := followers[0], followers[1]
	got := runKazooLocalSessions(t, py, c.Servers[first].Addr(), c.Servers[second].Addr(), func() { c.Stop(first) })
	require.Equal(t, kazooLocalSessionsWant, got, "zkraft")

	if ok, reason := realzk.Available(); !ok {
		t.Skip("the run against ZooKeeper is skipped: " + reason)
	}
	zks, err := realzk.StartEnsemble(filepath.Join(t.TempDir(), "zk"), 3, realzk.Options{ExtraConfig: map[string]string{
		"localSessionsEnabled":          "true",
		"localSessionsUpgradingEnabled": "true",
		"maxSessionTimeout":             "20000",
	}})
	require.NoError(t, err)
	defer zks.Stop()
	var zkFollowers []int
	for i, addr := range zks.Addrs() {
		mode, err := realzk.Mode(addr, 5*time.Second)
		require.NoError(t, err)
		if mode == "follower" {
			zkFollowers = append(zkFollowers, i)
		}
	}
	require.Len(t, zkFollowers, 2)
	addrs := zks.Addrs()
	want := runKazooLocalSessions(t, py, addrs[zkFollowers[0]], addrs[zkFollowers[1]], func() {
		require.NoError(t, zks.Kill(zkFollowers[0]))
	})
	require.Equal(t, kazooLocalSessionsWant, want, "ZooKeeper 3.8")
}
