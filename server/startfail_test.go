package server

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestFailedStartLeavesNoLog: a start that fails because the client port
// is taken creates nothing in a new dataDir (issue 12: it used to leave a
// 64 MiB preallocated raft-wal segment behind).
func TestFailedStartLeavesNoLog(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	cfg := DefaultConfig()
	cfg.ClientPort = busy.Addr().(*net.TCPAddr).Port
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	s, err := New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.ErrorContains(t, s.Start(ctx), "address already in use")
	require.NoError(t, s.Close())
	require.NoDirExists(t, cfg.DataDir)
}
