package server

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A dataDir holding ZooKeeper's version-2/ data and nothing of zkraft's
// stops the start with a message that names the file; an empty version-2
// or zkraft's own data beside it does not.
func TestZooKeeperDataStopsTheStart(t *testing.T) {
	start := func(dataDir string) error {
		cfg := DefaultConfig()
		cfg.ClientPort = 0
		cfg.DataDir, cfg.DataLogDir = dataDir, dataDir
		s, err := New(cfg)
		require.NoError(t, err)
		defer s.Close()
		return s.Start(context.Background())
	}
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "version-2"), 0o755))
	require.NoError(t, start(dir), "an empty version-2/ is no data")

	dir = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "version-2"), 0o755))
	snap := filepath.Join(dir, "version-2", "snapshot.0")
	require.NoError(t, os.WriteFile(snap, []byte("ZKSN"), 0o644))
	err := start(dir)
	require.ErrorIs(t, err, errZooKeeperData)
	require.ErrorContains(t, err, snap)
	require.ErrorContains(t, err, "zkserver import "+dir+" -to "+dir, "names the import command")

	require.NoError(t, os.MkdirAll(filepath.Join(dir, "zkraft-snapshots"), 0o755))
	require.NoError(t, start(dir), "zkraft has run here before: its own data decides")
}
