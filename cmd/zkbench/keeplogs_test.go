package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeepLogsCopiesEachServersLog(t *testing.T) {
	dir := t.TempDir()
	for _, srv := range []string{"0/1", "0/2", "1/1"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, srv, "data"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, srv, "zkserver.log"), []byte("log of "+srv), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, srv, "zoo.cfg"), []byte("x"), 0o644))
	}
	into := filepath.Join(t.TempDir(), "kept")
	require.NoError(t, keepLogs(into, dir, "zkserver3"))
	got, err := os.ReadFile(filepath.Join(into, "zkserver3-0-2.log"))
	require.NoError(t, err)
	require.Equal(t, "log of 0/2", string(got))
	kept, err := os.ReadDir(into)
	require.NoError(t, err)
	require.Len(t, kept, 3, "one file per server log, nothing else")
	require.NoError(t, keepLogs(into, dir, "zkserver3"), "a second run into the same directory replaces the logs")
	require.NoError(t, keepLogs("", dir, "zkserver3"), "no directory: nothing to do")
}
