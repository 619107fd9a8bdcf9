package migrate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/migrate"
	"github.com/zkraft/zkraft/server"
)

// roundTripNodes is how many znodes the round trip's bulk part creates.
const roundTripNodes = 100_000

// sessionTimeout is long enough for every ephemeral to outlive the test.
const sessionTimeout = 40 * time.Second

// TestRoundTripWithZooKeeper: a real ZooKeeper 3.8 builds a tree of
// >= 100k znodes of every kind, with a snapshot and logs after it, and is
// killed; the import gives a zkraft server that serves the same tree
// (every path, data, ACL and Stat field), whose next write gets a higher
// zxid and whose next sequential child continues the sequence; the export
// of that server is loaded by ZooKeeper, which serves zkraft's tree.
func TestRoundTripWithZooKeeper(t *testing.T) {
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	nodes := roundTripNodes
	switch {
	case testing.Short():
		nodes = 5_000
	case raceEnabled:
		nodes = 10_000
		t.Logf("race detector on: %d znodes instead of %d", nodes, roundTripNodes)
	}
	zkDir := t.TempDir()
	real, err := realzk.Start(zkDir, realzk.Options{ExtraConfig: map[string]string{"snapCount": "40"}})
	require.NoError(t, err)
	defer real.Stop()
	c := connect(t, real.Addr(), sessionTimeout)
	owner := c.SessionID()
	phase := time.Now()
	lap := func(what string) {
		t.Logf("%s: %v", what, time.Since(phase).Round(time.Millisecond))
		phase = time.Now()
	}
	buildTree(t, c, nodes)
	lap("ZooKeeper built the tree")
	want := readTree(t, c)
	lap("tree read from ZooKeeper")
	require.Greater(t, len(want), nodes)
	lastZxid := serverZxid(t, real.Addr())
	require.NoError(t, real.Stop()) // killed: its session stays open in its data
	c.Close()

	snaps, _ := filepath.Glob(filepath.Join(zkDir, "data", "version-2", "snapshot.*"))
	logs, _ := filepath.Glob(filepath.Join(zkDir, "data", "version-2", "log.*"))
	require.NotEmpty(t, snaps)
	require.NotEmpty(t, logs)

	start := time.Now()
	im, err := migrate.Load(migrate.Source{DataDir: filepath.Join(zkDir, "data"), ExtendedTypes: true})
	require.NoError(t, err)
	t.Logf("loaded %s + %d logs (%d txns) in %v; %s; notes %q", filepath.Base(im.Snapshot), len(im.Logs), im.Txns, time.Since(start), im.Digest, im.Notes)
	require.NotZero(t, im.Txns, "the logs after the snapshot are replayed")
	require.NotEmpty(t, im.Digest, "the replayed tree is checked against ZooKeeper's digest")
	require.Equal(t, lastZxid, im.LastZxid)
	require.Contains(t, im.Sessions, owner)

	dataDir := t.TempDir()
	cfg := server.DefaultConfig()
	cfg.ClientPort, cfg.DataDir, cfg.DataLogDir, cfg.ExtendedTypesEnabled = 0, dataDir, dataDir, true
	cfg.SuperDigest = realzk.SuperDigest
	storage := consensus.Storage{DataDir: dataDir}
	require.NoError(t, migrate.Import(im, migrate.Target{Storage: storage, Tree: datatree.Config{ExtendedTypesEnabled: true}}))
	require.ErrorIs(t, migrate.Import(im, migrate.Target{Storage: storage}), consensus.ErrHasData)

	srv := startServer(t, cfg)
	zc := connect(t, srv.Addr(), sessionTimeout)
	lap("imported and started")
	got := readTree(t, zc)
	lap("tree read from zkraft")
	requireSameTree(t, want, got)

	st, err := zc.Create("/after-import", []byte("x"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, stat, err := zc.Exists(st)
	require.NoError(t, err)
	require.Greater(t, stat.Czxid, lastZxid, "zxids keep growing from ZooKeeper's")
	seqStat := want["/seq"].stat
	next := (seqStat.Cversion + seqStat.NumChildren) / 2 // ZooKeeper's stored cversion
	p, err := zc.Create("/seq/s-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("/seq/s-%010d", next), p, "the sequence continues")
	after := readTree(t, zc)
	zc.Close()
	require.NoError(t, srv.Close())

	outDir := t.TempDir()
	file, err := migrate.Export(storage, datatree.Config{ExtendedTypesEnabled: true}, filepath.Join(outDir, "data"), nil)
	require.NoError(t, err)
	named, err := strconv.ParseInt(strings.TrimPrefix(filepath.Base(file), "snapshot."), 16, 64)
	require.NoError(t, err)
	require.Greater(t, named, after["/seq"].stat.Pzxid, "named after the last zxid (the session's close came last)")
	back, err := realzk.Start(outDir, realzk.Options{})
	require.NoError(t, err)
	defer back.Stop()
	bc := connect(t, back.Addr(), sessionTimeout)
	defer bc.Close()
	lap("exported, ZooKeeper started")
	requireSameTree(t, after, readTree(t, bc), "/zookeeper/config")
	lap("tree read from ZooKeeper and compared")
	log, _ := os.ReadFile(filepath.Join(outDir, "out.log"))
	require.NotContains(t, string(log), "Digests are not matching", "ZooKeeper checks the exported digest")
}

// startServer starts a zkraft server on cfg and stops it when the test ends.
func startServer(t *testing.T, cfg server.Config) *server.Server {
	t.Helper()
	srv, err := server.New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, srv.Start(ctx))
	t.Cleanup(func() { srv.Close() })
	return srv
}

// serverZxid reads the last zxid from srvr.
func serverZxid(t *testing.T, addr string) int64 {
	t.Helper()
	out, err := realzk.FourLetterWord(addr, "srvr", 5*time.Second)
	require.NoError(t, err)
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "Zxid: "); ok {
			z, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(v), "0x"), 16, 64)
			require.NoError(t, err)
			return z
		}
	}
	t.Fatalf("no zxid in srvr: %s", out)
	return 0
}

// buildTree makes a tree of nodes bulk znodes (in multis of 500) and a few
// of every other kind: sequentials, ephemerals of c's session, containers,
// TTL nodes, custom ACLs, data up to a few KB, setData and setACL to bump
// versions, deletes to make cversion differ from the child count.
func buildTree(t *testing.T, c *zk.Conn, nodes int) {
	t.Helper()
	open := zk.WorldACL(zk.PermAll)
	mk := func(p string, data []byte, flags int32, acl []zk.ACL) {
		_, err := c.Create(p, data, flags, acl)
		require.NoError(t, err, p)
	}
	const perParent = 1000
	parents := (nodes + perParent - 1) / perParent
	mk("/bulk", nil, 0, open)
	var ops []interface{}
	for i := 0; i < nodes; i++ {
		if i%perParent == 0 {
			ops = append(ops, &zk.CreateRequest{Path: fmt.Sprintf("/bulk/p%03d", i/perParent), Data: []byte("parent"), Acl: open})
		}
		size := (i * 7919) % 48
		if i%997 == 0 {
			size = 1000 + i%3000
		}
		data := []byte(strings.Repeat(string(rune('a'+i%26)), size))
		ops = append(ops, &zk.CreateRequest{Path: fmt.Sprintf("/bulk/p%03d/n%05d", i/perParent, i), Data: data, Acl: open})
		if len(ops) >= 500 || i == nodes-1 {
			_, err := c.Multi(ops...)
			require.NoError(t, err)
			ops = ops[:0]
		}
	}
	for p := 0; p < parents; p += 7 { // deletes: cversion no longer the child count
		require.NoError(t, c.Delete(fmt.Sprintf("/bulk/p%03d/n%05d", p, p*perParent), -1))
	}
	mk("/seq", []byte("s"), 0, open)
	for i := 0; i < 30; i++ {
		mk("/seq/s-", []byte{byte(i)}, zk.FlagSequence, open)
	}
	require.NoError(t, c.Delete("/seq/s-0000000003", -1))
	mk("/eph", nil, 0, open)
	for i := 0; i < 20; i++ {
		mk(fmt.Sprintf("/eph/e%02d", i), []byte("ephemeral"), zk.FlagEphemeral, open)
		mk("/eph/es-", nil, zk.FlagEphemeral|zk.FlagSequence, open)
	}
	_, err := c.CreateContainer("/box", []byte("container"), zk.FlagContainer, open)
	require.NoError(t, err)
	mk("/box/item", nil, 0, open)
	_, err = c.CreateContainer("/box-empty", nil, zk.FlagContainer, open)
	require.NoError(t, err)
	_, err = c.CreateTTL("/ttl", []byte("ttl"), zk.FlagTTL, open, time.Hour)
	require.NoError(t, err)
	_, err = c.CreateTTL("/seq/ttl-", nil, 6 /* persistent sequential with TTL */, open, 2*time.Hour)
	require.NoError(t, err)
	mk("/acl", []byte("acl"), 0, append(zk.DigestACL(zk.PermAll, "u", "p"), zk.WorldACL(zk.PermRead)...))
	mk("/acl/ip", nil, 0, []zk.ACL{{Perms: zk.PermRead | zk.PermWrite, Scheme: "ip", ID: "127.0.0.1"}})
	for i := 0; i < 5; i++ {
		_, err := c.Set("/acl", []byte(fmt.Sprintf("v%d", i)), -1)
		require.NoError(t, err)
		_, err = c.SetACL("/acl/ip", []zk.ACL{{Perms: zk.PermAll, Scheme: "ip", ID: "127.0.0.1"}}, int32(i))
		require.NoError(t, err)
	}
	_, err = c.Set("/bulk/p000/n00001", []byte(strings.Repeat("z", 4000)), -1)
	require.NoError(t, err)
}
