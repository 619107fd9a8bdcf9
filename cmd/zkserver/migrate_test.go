package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/migrate"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// fillZkraft writes a durable standalone zkraft directory with a session,
// its ephemeral, a sequential node and a few persistent ones.
func fillZkraft(t *testing.T, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := consensus.Start(ctx, consensus.Config{ServerID: 1, Storage: consensus.Storage{DataDir: dir}})
	require.NoError(t, err)
	defer n.Close()
	const s int64 = 0x0100000000000001
	_, err = n.Propose(ctx, &consensus.Command{Kind: consensus.KindCreateSession, Session: s, Timeout: 30000, Time: 1})
	require.NoError(t, err)
	create := func(path string, flags int32) {
		body := &wire.CreateRequest{Path: path, Data: []byte("data of " + path), ACL: wire.OpenACLUnsafe, Flags: flags}
		a, err := n.Propose(ctx, &consensus.Command{Kind: consensus.KindTxn, Txn: &datatree.Txn{Time: 2, Session: s, Op: wire.OpCreate, Body: body}})
		require.NoError(t, err)
		require.NoError(t, a.Result.Err)
	}
	for i := 0; i < 20; i++ {
		create(fmt.Sprintf("/n%02d", i), 0)
	}
	require.NoError(t, n.Snapshot()) // a snapshot, then more log after it
	create("/n00/eph", wire.FlagEphemeral)
	create("/n00/seq-", wire.FlagPersistentSequential)
}

// stateOf reads a stopped server's state: its nodes (but the membership
// node), sessions and last zxid.
func stateOf(t *testing.T, dir string) (map[string]datatree.StoredNode, int, int64) {
	t.Helper()
	st, err := consensus.ReadState(consensus.Storage{DataDir: dir}, datatree.Config{})
	require.NoError(t, err)
	nodes := map[string]datatree.StoredNode{}
	require.NoError(t, st.Tree.WalkStored(func(p string, sn datatree.StoredNode) error {
		if p != "/zookeeper/config" {
			nodes[p] = sn
		}
		return nil
	}))
	return nodes, st.Sessions.Len(), st.LastZxid
}

// zkserver export writes a ZooKeeper snapshot of a stopped server, and
// zkserver import seeds a new directory from it that verifies clean and
// holds the same state; neither overwrites data.
func TestExportThenImport(t *testing.T) {
	src, zkDir, dst := t.TempDir(), t.TempDir(), t.TempDir()
	fillZkraft(t, src)
	var out, progress bytes.Buffer
	require.NoError(t, run([]string{"export", src, "-to", zkDir}, &progress))
	snaps, _ := filepath.Glob(filepath.Join(zkDir, "version-2", "snapshot.*"))
	require.Len(t, snaps, 1)
	require.ErrorIs(t, runExport([]string{src, "-to", zkDir}, &out, &progress), migrate.ErrTargetNotEmpty)

	require.NoError(t, runImport([]string{"-progress", zkDir, "-to", dst}, &out, &progress))
	require.Contains(t, out.String(), "imported 26 znodes and 1 sessions")
	require.Contains(t, out.String(), "for standalone server 0")
	out.Reset()
	require.NoError(t, runVerify([]string{dst}, &out))
	require.Contains(t, out.String(), "no damage")
	require.ErrorIs(t, runImport([]string{zkDir, "-to", dst}, &out, &progress), consensus.ErrHasData)

	wantNodes, wantSessions, wantZxid := stateOf(t, src)
	gotNodes, gotSessions, gotZxid := stateOf(t, dst)
	require.Equal(t, wantNodes, gotNodes)
	require.Equal(t, wantSessions, gotSessions)
	require.Equal(t, wantZxid, gotZxid)
}

// Importing in place (dataDir holding ZooKeeper's version-2/) lets the
// server start there, where the ZooKeeper data alone stops it with the
// import command to run.
func TestImportInPlace(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	fillZkraft(t, src)
	require.NoError(t, runExport([]string{src, "-to", dir}, &bytes.Buffer{}, nil))
	cfgPath := writeCfg(t, fmt.Sprintf("tickTime=2000\nclientPort=2181\nclientPortAddress=127.0.0.1\ndataDir=%s\nextendedTypesEnabled=true\n", dir))
	cfg, err := server.ParseConfigFile(cfgPath)
	require.NoError(t, err)
	cfg.ClientPort = 0 // a free port; zoo.cfg cannot say 0
	start := func() error {
		srv, err := server.New(cfg)
		require.NoError(t, err)
		defer srv.Close()
		return srv.Start(context.Background())
	}
	require.ErrorContains(t, start(), "zkserver import "+dir+" -to "+cfgPath)
	require.NoError(t, runImport([]string{dir, "-to", cfgPath}, &bytes.Buffer{}, nil))
	require.NoError(t, start())
}

func TestMigrateArguments(t *testing.T) {
	var out bytes.Buffer
	require.ErrorIs(t, runImport([]string{t.TempDir()}, &out, &out), errImportUsage)
	require.ErrorIs(t, runImport([]string{"-to", t.TempDir()}, &out, &out), errImportUsage)
	require.ErrorIs(t, runImport([]string{"a", "b", "c", "-to", "d"}, &out, &out), errImportUsage)
	require.ErrorContains(t, runImport([]string{"-bogus", "a", "-to", "d"}, &out, &out), "unknown flag -bogus")
	require.ErrorIs(t, runExport([]string{"-to"}, &out, &out), errExportUsage)
	empty := t.TempDir()
	require.ErrorIs(t, runImport([]string{empty, "-to", t.TempDir()}, &out, &out), migrate.ErrNoSnapshot)
	require.ErrorIs(t, runExport([]string{empty, "-to", t.TempDir()}, &out, &out), consensus.ErrNoData)
	_, err := os.Stat(filepath.Join(empty, "zkraft-wal"))
	require.True(t, os.IsNotExist(err), "a refused export creates nothing")
	missing := filepath.Join(empty, "missing")
	require.ErrorIs(t, runExport([]string{missing, "-to", t.TempDir()}, &out, &out), consensus.ErrNoData)
	_, err = os.Stat(missing)
	require.True(t, os.IsNotExist(err))
	fresh := filepath.Join(t.TempDir(), "new")
	src := t.TempDir()
	fillZkraft(t, src)
	require.NoError(t, runExport([]string{src, "-to", empty}, &out, &out))
	require.NoError(t, runImport([]string{empty, "-to", fresh}, &out, &out), "a missing target directory is created")
}
