package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/realzk"
)

// killableEnsemble is a running three-server ensemble whose members a
// test can SIGKILL and start again from their data: zkserver processes
// or ZooKeeper JVMs.
type killableEnsemble struct {
	addrs   []string
	kill    func(i int)
	restart func(i int)
}

// srvrReply is what srvr said at one moment: serving with a zxid and a
// node count, or "not currently serving".
type srvrReply struct {
	serving bool
	zxid    int64
	nodes   int
}

// parseSrvrReply reads srvr's Zxid and Node count lines; ok is false for
// anything that is neither those nor ZooKeeper's "not currently serving".
func parseSrvrReply(out string) (r srvrReply, ok bool) {
	if strings.Contains(out, "not currently serving") {
		return r, true
	}
	var haveZxid, haveNodes bool
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if v, found := strings.CutPrefix(line, "Zxid: "); found {
			z, err := strconv.ParseInt(strings.TrimPrefix(v, "0x"), 16, 64)
			r.zxid, haveZxid = z, err == nil
		}
		if v, found := strings.CutPrefix(line, "Node count: "); found {
			n, err := strconv.Atoi(v)
			r.nodes, haveNodes = n, err == nil
		}
	}
	r.serving = haveZxid && haveNodes
	return r, r.serving
}

// TestRestartedLeaderSrvrNeverShowsOldState kills the leader of a durable
// three-server ensemble, writes while it is down, restarts it and asks
// it for srvr as fast as it answers. Tools that read srvr (monitoring
// scripts, go-zookeeper's FLWSrvr) take a server that answers with a zxid
// to be serving that state: until the restarted server has caught up with
// the leader, it must say it is not serving (ZooKeeper 3.8 does so until
// its follower has synchronised), never show the state it had on disk.
// The same steps run on a ZooKeeper 3.8 ensemble when one is installed.
func TestRestartedLeaderSrvrNeverShowsOldState(t *testing.T) {
	t.Run("zkserver", func(t *testing.T) {
		bin := buildServer(t)
		dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
		procs := startDurableEnsemble(t, bin, dirs)
		e := killableEnsemble{
			kill: func(i int) { procs[i].cmd.Process.Kill(); <-procs[i].exited },
			restart: func(i int) {
				procs[i].start(t, bin)
			},
		}
		for _, p := range procs {
			e.addrs = append(e.addrs, p.addr)
		}
		got := checkSrvrAfterRestart(t, e)
		require.Zero(t, got.behind, "the restarted server answered srvr with a state it had not caught up from: %v", got)
	})
	t.Run("zookeeper", func(t *testing.T) {
		if ok, reason := realzk.Available(); !ok {
			t.Skip(reason)
		}
		opts := realzk.Options{ForceSync: true}
		zks, err := realzk.StartEnsemble(filepath.Join(t.TempDir(), "zk"), 3, opts)
		require.NoError(t, err)
		t.Cleanup(func() {
			if t.Failed() {
				for i := 1; i <= 3; i++ {
					out, _ := os.ReadFile(filepath.Join(zks.Dir(), strconv.Itoa(i), "out.log"))
					t.Logf("server %d's log:\n%s", i, out)
				}
			}
			zks.Stop()
		})
		e := killableEnsemble{
			addrs:   zks.Addrs(),
			kill:    func(i int) { require.NoError(t, zks.Kill(i)) },
			restart: func(i int) { require.NoError(t, zks.Restart(i, opts)) },
		}
		// ZooKeeper 3.8 answers "not currently serving" until its
		// follower has a leader, but may then serve srvr while it still
		// applies the leader's DIFF, or for a moment with its disk's
		// state (seen here: Zxid 0x10000006b, 105 znodes, Mode: follower).
		// Recorded, not asserted: integration/DIFFERENCES.md.
		checkSrvrAfterRestart(t, e)
	})
}

// restartWrites is how many znodes are created while the leader is down:
// enough that catching up takes the restarted server a while.
const restartWrites = 1500

// srvrAfterRestart counts what a restarted server's srvr said: "not
// currently serving", serving a state behind the ensemble's (the first
// and last such zxid), then serving a state that includes every write.
type srvrAfterRestart struct {
	notServing, behind, caughtUp int
	firstBehind, lastBehind      srvrReply
	want                         srvrReply
}

func (s srvrAfterRestart) String() string {
	if s.behind == 0 {
		return fmt.Sprintf("%d replies \"not currently serving\", then %d serving zxid >= 0x%x", s.notServing, s.caughtUp, s.want.zxid)
	}
	return fmt.Sprintf("%d replies \"not currently serving\", %d serving a state behind the ensemble's 0x%x (%d znodes): from 0x%x (%d znodes) to 0x%x (%d), then %d caught up",
		s.notServing, s.behind, s.want.zxid, s.want.nodes, s.firstBehind.zxid, s.firstBehind.nodes, s.lastBehind.zxid, s.lastBehind.nodes, s.caughtUp)
}

// checkSrvrAfterRestart kills the leader, creates restartWrites znodes
// through a follower, restarts the killed server and polls its srvr until
// it has served a state with every write 20 times.
func checkSrvrAfterRestart(t *testing.T, e killableEnsemble) srvrAfterRestart {
	leader := waitLeaderIndex(t, e.addrs)
	follower := (leader + 1) % len(e.addrs)
	conn := connectQuiet(t, e.addrs[follower])
	defer conn.Close()
	createAll(t, conn, "before", 100)
	e.kill(leader)
	createAll(t, conn, "after", restartWrites)
	got := srvrAfterRestart{want: srvrOf(t, e.addrs[follower])}
	require.True(t, got.want.serving, "the follower that took the writes serves")
	t.Logf("server %d killed; the ensemble went on to zxid 0x%x with %d znodes", leader+1, got.want.zxid, got.want.nodes)

	e.restart(leader)
	deadline := time.Now().Add(servedWithin)
	for got.caughtUp < 20 {
		require.True(t, time.Now().Before(deadline), "server %d never served srvr after its restart", leader+1)
		out, err := realzk.FourLetterWord(e.addrs[leader], "srvr", time.Second)
		if err != nil {
			continue // not listening yet
		}
		r, ok := parseSrvrReply(out)
		require.True(t, ok, "srvr: %q", out)
		switch {
		case !r.serving:
			got.notServing++
		case r.zxid < got.want.zxid || r.nodes < got.want.nodes:
			if got.behind == 0 {
				got.firstBehind = r
			}
			got.behind++
			got.lastBehind = r
		default:
			got.caughtUp++
		}
	}
	t.Logf("server %d after its restart: %v", leader+1, got)
	return got
}

// createAll creates /prefix-0 ... /prefix-(n-1), waiting out elections.
func createAll(t *testing.T, conn *zk.Conn, prefix string, n int) {
	t.Helper()
	for i := range n {
		untilServed(t, "create /"+prefix, func() error {
			_, err := conn.Create(fmt.Sprintf("/%s-%d", prefix, i), []byte("x"), 0, zk.WorldACL(zk.PermAll))
			return ignoreExists(err)
		})
	}
}

// srvrOf asks srvr once and fails the test on an unreadable reply.
func srvrOf(t *testing.T, addr string) srvrReply {
	t.Helper()
	out, err := realzk.FourLetterWord(addr, "srvr", 5*time.Second)
	require.NoError(t, err)
	r, ok := parseSrvrReply(out)
	require.True(t, ok, "srvr on %s: %q", addr, out)
	return r
}

// waitLeaderIndex returns the index in addrs of the server whose srvr says
// leader.
func waitLeaderIndex(t *testing.T, addrs []string) int {
	t.Helper()
	deadline := time.Now().Add(servedWithin)
	for time.Now().Before(deadline) {
		for i, a := range addrs {
			if m, err := realzk.Mode(a, time.Second); err == nil && m == "leader" {
				return i
			}
		}
		time.Sleep(20 * time.Millisecond) // poll interval of the condition above
	}
	t.Fatalf("no server of %v leads", addrs)
	return -1
}

// ignoreExists treats ZNODEEXISTS as success: a create retried after its
// connection was lost may have been applied the first time.
func ignoreExists(err error) error {
	if err == zk.ErrNodeExists {
		return nil
	}
	return err
}
