package consensus

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// persistentWalk lists every node but the ephemerals, with its data and
// the Stat fields a restore keeps.
func persistentWalk(n *Node) []string {
	var out []string
	n.Read(func(st *State) {
		st.Tree.Walk(func(p string, s wire.Stat) {
			if s.EphemeralOwner != 0 || strings.HasPrefix(p, "/zookeeper") {
				return
			}
			data, _, _ := st.Tree.GetData(p)
			out = append(out, fmt.Sprintf("%s %q czxid=%x mzxid=%x version=%d", p, data, s.Czxid, s.Mzxid, s.Version))
		})
	})
	return out
}

// fillForBackup creates a session, persistent nodes and an ephemeral.
func fillForBackup(t *testing.T, n *Node, prefix string) {
	t.Helper()
	propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	for i := 0; i < 20; i++ {
		a := propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: fmt.Sprintf("/%s%d", prefix, i), Data: []byte{byte(i), 0, 0xff}, ACL: wire.OpenACLUnsafe}))
		require.NoError(t, a.Result.Err)
	}
	a := propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/" + prefix + "0/eph", ACL: wire.OpenACLUnsafe, Flags: wire.FlagEphemeral}))
	require.NoError(t, a.Result.Err)
}

func takeBackup(t *testing.T, n *Node) (*Backup, []byte) {
	t.Helper()
	b, err := n.OpenBackup(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	var buf bytes.Buffer
	w, err := b.WriteTo(&buf)
	require.NoError(t, err)
	require.Equal(t, b.Size(), w)
	require.Equal(t, b.Size(), int64(buf.Len()))
	return b, buf.Bytes()
}

func TestBackupRestoreStandalone(t *testing.T) {
	n := startNode(t, nil)
	fillForBackup(t, n, "a")
	b, raw := takeBackup(t, n)
	require.Equal(t, n.LastZxid(), b.LastZxid)
	want := persistentWalk(n)

	// Writes after the backup, which the restore undoes.
	for i := 0; i < 5; i++ {
		propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: fmt.Sprintf("/later%d", i), ACL: wire.OpenACLUnsafe}))
	}
	before := n.LastZxid()
	var restored []*State
	n.fsm.onRestore = func(st *State) { restored = append(restored, st) }

	zxid, err := n.RestoreBackup(context.Background(), bytes.NewReader(raw))
	require.NoError(t, err)
	require.Greater(t, zxid, before, "the restore's zxid is above every earlier one")
	require.Equal(t, zxid, n.LastZxid())
	require.Len(t, restored, 1)
	require.Equal(t, want, persistentWalk(n))
	n.Read(func(st *State) {
		require.Zero(t, st.Sessions.Len(), "the restore ends every session")
		require.Zero(t, st.Tree.EphemeralCount(), "and deletes every ephemeral")
		_, s, err := st.Tree.GetData("/a0")
		require.NoError(t, err)
		require.Equal(t, zxid, s.Pzxid, "the ephemeral's parent changed at the restore's zxid")
	})
	a := propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/after", ACL: wire.OpenACLUnsafe}))
	require.Equal(t, wire.CodeSessionExpired, a.Result.Err, "the backup's session is gone")
	require.Equal(t, zxid+1, a.Zxid, "zxids go on from the restore's")
}

func TestRestoreRefusesDamagedBackups(t *testing.T) {
	n := startNode(t, nil)
	fillForBackup(t, n, "d")
	_, raw := takeBackup(t, n)
	propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/kept", ACL: wire.OpenACLUnsafe}))
	want, zxid := persistentWalk(n), n.LastZxid()

	flipped := bytes.Clone(raw)
	flipped[len(flipped)/2] ^= 0x40
	cases := map[string]struct {
		data []byte
		msg  string
	}{
		"empty":          {nil, "truncated"},
		"header cut":     {raw[:10], "truncated"},
		"state cut":      {raw[:len(raw)/2], "truncated"},
		"checksum cut":   {raw[:len(raw)-3], "truncated"},
		"altered byte":   {flipped, "checksum mismatch"},
		"bytes appended": {append(bytes.Clone(raw), 0), "bytes after the checksum"},
		"not a backup":   {append([]byte("ZKRS"), raw[4:]...), "not a zkraft backup"},
		"other version":  {append(append(bytes.Clone(raw[:4]), 0, 0, 0, 9), raw[8:]...), "version 9"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := n.RestoreBackup(context.Background(), bytes.NewReader(c.data))
			require.ErrorIs(t, err, ErrBadBackup)
			require.ErrorContains(t, err, c.msg)
			require.Equal(t, want, persistentWalk(n), "nothing changed")
			require.Equal(t, zxid, n.LastZxid())
		})
	}
}

func TestRestoreSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	n, err := tryStart(dir, true, nil)
	require.NoError(t, err)
	fillForBackup(t, n, "r")
	_, raw := takeBackup(t, n)
	propose(t, n, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/gone", ACL: wire.OpenACLUnsafe}))
	zxid, err := n.RestoreBackup(context.Background(), bytes.NewReader(raw))
	require.NoError(t, err)
	want := persistentWalk(n)
	require.NoError(t, n.Close())

	// Raft starts from the stamped restore snapshot: same state, same zxid.
	n, err = tryStart(dir, true, nil)
	require.NoError(t, err)
	defer n.Close()
	require.Equal(t, want, persistentWalk(n))
	require.Equal(t, zxid, n.LastZxid())
}

func TestRestoreThroughRaftReachesEveryReplica(t *testing.T) {
	nodes, _ := startEnsembleWith(t, 3, func(c *Config) {
		c.ElectionTimeout = testElectionTimeout
		c.Tree = datatree.Config{ExtendedTypesEnabled: true}
	})
	waitAllKnowLeader(t, nodes)
	lead := nodes[leaderOf(nodes)]
	fillForBackup(t, lead, "e")
	_, raw := takeBackup(t, lead)
	want := persistentWalk(lead)
	propose(t, lead, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/undone", ACL: wire.OpenACLUnsafe}))

	follower := nodes[(leaderOf(nodes)+1)%3]
	_, err := follower.RestoreBackup(context.Background(), bytes.NewReader(raw))
	require.ErrorIs(t, err, ErrRestoreOnFollower)
	require.ErrorContains(t, err, fmt.Sprintf("server %d leads", leaderOf(nodes)+1))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	zxid, err := lead.RestoreBackup(ctx, bytes.NewReader(raw))
	require.NoError(t, err)
	for i, nd := range nodes {
		require.Eventually(t, func() bool { return nd.LastZxid() >= zxid }, 20*time.Second, 5*time.Millisecond, "server %d", i+1)
		require.Equal(t, want, persistentWalk(nd), "server %d", i+1)
		nd.Read(func(st *State) { require.Zero(t, st.Tree.EphemeralCount()) })
	}
	// A write through a follower lands after the restore on every replica.
	a, err := follower.Propose(ctx, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/x", ACL: wire.OpenACLUnsafe}))
	require.NoError(t, err)
	require.Greater(t, a.Zxid, zxid)
}

func TestRestoreWithoutQuorumChangesNothing(t *testing.T) {
	nodes, _ := startEnsembleWith(t, 3, func(c *Config) { c.ElectionTimeout = testElectionTimeout })
	waitAllKnowLeader(t, nodes)
	li := leaderOf(nodes)
	lead := nodes[li]
	fillForBackup(t, lead, "q")
	_, raw := takeBackup(t, lead)
	propose(t, lead, txnCmd(wire.OpCreate, &wire.CreateRequest{Path: "/stays", ACL: wire.OpenACLUnsafe}))
	want, zxid := persistentWalk(lead), lead.LastZxid()
	for i, nd := range nodes {
		if i != li {
			require.NoError(t, nd.Close())
		}
	}
	_, err := lead.RestoreBackup(context.Background(), bytes.NewReader(raw))
	require.ErrorIs(t, err, ErrRestoreNoQuorum)
	require.Equal(t, want, persistentWalk(lead))
	require.Equal(t, zxid, lead.LastZxid())
}
