package integration

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// userTree is a server's DumpTree without /zookeeper, whose config node
// differs between a standalone server and an ensemble.
func userTree(s *server.Server) string {
	var keep []string
	for _, l := range strings.Split(s.DumpTree(), "\n") {
		if l != "" && !strings.HasPrefix(l, "/zookeeper") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// backupBytes takes a backup on s and returns it whole.
func backupBytes(t *testing.T, s *server.Server) (int64, []byte) {
	t.Helper()
	b, err := s.OpenBackup(context.Background())
	require.NoError(t, err)
	defer b.Close()
	var buf bytes.Buffer
	n, err := b.WriteTo(&buf)
	require.NoError(t, err)
	require.Equal(t, b.Size, n)
	return b.LastZxid, buf.Bytes()
}

// loadWriters run writers, each creating /load/w<i>-<seq> in order and,
// every fifth write, setting /pair/a and /pair/b to the same value in one
// multi, until stopped.
type loadWriters struct {
	stop chan struct{}
	wg   sync.WaitGroup
}

func startLoad(t *testing.T, c *Cluster, writers int) *loadWriters {
	conn, _ := c.Connect(t)
	for _, p := range []string{"/load", "/pair", "/pair/a", "/pair/b"} {
		_, err := conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err)
	}
	lw := &loadWriters{stop: make(chan struct{})}
	for w := 0; w < writers; w++ {
		conn, _ := c.Connect(t)
		lw.wg.Add(1)
		go func() {
			defer lw.wg.Done()
			for seq := 0; ; seq++ {
				select {
				case <-lw.stop:
					return
				default:
				}
				if _, err := conn.Create(fmt.Sprintf("/load/w%d-%06d", w, seq), []byte{byte(seq), 0}, 0, zk.WorldACL(zk.PermAll)); err != nil {
					return // the restore ended the session: stop here
				}
				if seq%5 == 0 {
					v := []byte(fmt.Sprintf("%d-%d", w, seq))
					if _, err := conn.Multi(&zk.SetDataRequest{Path: "/pair/a", Data: v, Version: -1},
						&zk.SetDataRequest{Path: "/pair/b", Data: v, Version: -1}); err != nil {
						return
					}
				}
			}
		}()
	}
	return lw
}

func (lw *loadWriters) halt() {
	close(lw.stop)
	lw.wg.Wait()
}

// requireConsistentCut checks that a tree is one moment of the load: each
// writer's nodes are a prefix of its sequence and the pair agrees.
func requireConsistentCut(t *testing.T, conn *zk.Conn) {
	t.Helper()
	a, _, err := conn.Get("/pair/a")
	require.NoError(t, err)
	b, _, err := conn.Get("/pair/b")
	require.NoError(t, err)
	require.Equal(t, a, b, "a multi is in the backup whole or not at all")
	kids, _, err := conn.Children("/load")
	require.NoError(t, err)
	sort.Strings(kids)
	next := map[string]int{}
	for _, k := range kids {
		w, seq, _ := strings.Cut(k, "-")
		require.Equal(t, fmt.Sprintf("%06d", next[w]), seq, "writer %s's writes are a prefix", w)
		next[w]++
	}
	require.NotEmpty(t, next, "the backup caught some of the load")
}

func TestBackupRestoreRoundTripUnderWrites(t *testing.T) {
	c := StartCluster(t, 3)
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	conn, _ := c.Connect(t)
	_, err := conn.Create("/app", []byte{0, 1, 2, 0xfe, 0xff}, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = conn.Create("/app/secret", []byte("s"), 0, zk.DigestACL(zk.PermAll, "u", "p"))
	require.NoError(t, err)
	_, err = conn.Create("/app/seq-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = conn.Create("/app/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	load := startLoad(t, c, 3)
	waitLoad(t, conn, 60) // the backup is taken in the middle of the load
	_, raw := backupBytes(t, c.Servers[follower])
	waitLoad(t, conn, loadCount(t, conn)+60)
	load.halt()
	written := loadCount(t, conn)

	// What the backup holds, restored on a standalone server of its own.
	ref := StartServer(t)
	_, err = ref.RestoreBackup(context.Background(), bytes.NewReader(raw))
	require.NoError(t, err)
	refConn, _ := ref.Connect(t)
	requireConsistentCut(t, refConn)
	want := userTree(ref.Server)
	require.NotContains(t, want, "owner=", "no ephemeral survives a restore")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	restored, err := c.Servers[leader].RestoreBackup(ctx, bytes.NewReader(raw))
	require.NoError(t, err)
	require.NotZero(t, restored)
	for i, s := range c.Servers {
		require.Eventually(t, func() bool { return userTree(s) == want }, 20*time.Second, 10*time.Millisecond,
			"server %d holds the backup's tree:\n%s", i+1, userTree(s))
	}
	require.Less(t, loadCount(t, refConn), written, "the restore undid the writes after the backup")
	data, _, err := refConn.Get("/app")
	require.NoError(t, err)
	require.Equal(t, []byte{0, 1, 2, 0xfe, 0xff}, data)
	require.NoError(t, refConn.AddAuth("digest", []byte("u:p")))
	acl, _, err := refConn.GetACL("/app/secret")
	require.NoError(t, err)
	require.Equal(t, zk.DigestACL(zk.PermAll, "u", "p"), acl)
}

func TestRestoreEndsSessionsKeepsZxidsAndRefusesDamage(t *testing.T) {
	c := StartCluster(t, 3)
	leader := c.WaitForLeader()
	follower := (leader + 1) % 3
	conn, _ := c.Connect(t, c.Servers[follower].Addr())
	_, err := conn.Create("/keep", []byte("v1"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, raw := backupBytes(t, c.Servers[leader])

	// A client with an ephemeral and a watch, and writes after the backup.
	_, err = conn.Create("/mine", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, _, watch, err := conn.GetW("/keep")
	require.NoError(t, err)
	st, err := conn.Set("/keep", []byte("v2"), -1)
	require.NoError(t, err)
	<-watch
	_, _, watch, err = conn.GetW("/keep")
	require.NoError(t, err)
	seen := st.Mzxid // the highest zxid the client saw
	before := userTree(c.Servers[leader])

	// Damaged backups change nothing anywhere.
	flipped := bytes.Clone(raw)
	flipped[len(flipped)-20] ^= 1
	for name, bad := range map[string][]byte{"truncated": raw[:len(raw)-9], "altered": flipped} {
		_, err := c.Servers[leader].RestoreBackup(context.Background(), bytes.NewReader(bad))
		require.ErrorIs(t, err, consensus.ErrBadBackup, name)
		for i, s := range c.Servers { // followers may still be applying the last write
			require.Eventually(t, func() bool { return userTree(s) == before }, 10*time.Second, 5*time.Millisecond,
				"%s: server %d unchanged", name, i+1)
		}
	}

	// A follower names the leader.
	_, err = c.Servers[follower].RestoreBackup(context.Background(), bytes.NewReader(raw))
	require.ErrorIs(t, err, consensus.ErrRestoreOnFollower)
	require.ErrorContains(t, err, fmt.Sprintf("server %d leads", leader+1))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	restored, err := c.Servers[leader].RestoreBackup(ctx, bytes.NewReader(raw))
	require.NoError(t, err)
	require.Greater(t, restored, seen, "the restore's zxid is above every zxid served before")

	// The client's watch ends and its session expired; its ephemeral is gone.
	ev := <-watch
	require.Equal(t, zk.EventNotWatching, ev.Type)
	for i, s := range c.Servers {
		require.Eventually(t, func() bool { return len(s.Ephemerals()) == 0 }, 20*time.Second, 10*time.Millisecond)
		require.Empty(t, s.Sessions(), "server %d", i+1)
	}

	// A client that saw zxid `seen` is served: a new session is granted at
	// once, and its old session is answered as expired, not dropped as a
	// client ahead of the server.
	for i, s := range c.Servers {
		rc, err := dialRaw(s.Addr())
		require.NoError(t, err)
		resp, err := rc.Handshake(wire.ConnectRequest{LastZxidSeen: seen, TimeOut: 4000, Passwd: make([]byte, 16)})
		require.NoError(t, err, "server %d", i+1)
		require.NotZero(t, resp.SessionID, "server %d grants a session", i+1)
		rc.Close()
	}
	data, st, err := reconnected(t, conn).Get("/keep")
	require.NoError(t, err)
	require.Equal(t, []byte("v1"), data, "the backup's value")
	require.Less(t, st.Mzxid, restored)
	st, err = conn.Set("/keep", []byte("v3"), -1)
	require.NoError(t, err)
	require.Greater(t, st.Mzxid, restored, "zxids grow from the restore's")
}

// loadCount is the number of nodes the load created so far.
func loadCount(t *testing.T, conn *zk.Conn) int {
	t.Helper()
	_, st, err := conn.Exists("/load")
	require.NoError(t, err)
	return int(st.NumChildren)
}

// waitLoad waits until the load created at least n nodes.
func waitLoad(t *testing.T, conn *zk.Conn, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return loadCount(t, conn) >= n }, 20*time.Second, 5*time.Millisecond)
}

// reconnected waits until the client has a session again (go-zookeeper
// opens a new one after an expiry) and returns it.
func reconnected(t *testing.T, conn *zk.Conn) *zk.Conn {
	t.Helper()
	require.Eventually(t, func() bool {
		_, _, err := conn.Exists("/")
		return err == nil
	}, 20*time.Second, 20*time.Millisecond)
	return conn
}
