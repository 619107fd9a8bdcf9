package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// runBin runs bin with args, returning its output and exit code; it must
// finish within the deadline (no hang).
func runBin(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("zkserver %v did not finish: %s", args, out.String())
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// TestDataDirLockAndVerify: a second zkserver on a dataDir in use exits at
// once naming the directory and the holder's pid; `zkserver verify` passes
// a clean directory, and after a data byte in the log is changed it names
// the file and offset and exits 1, and the server refuses to start on it
// with one line.
func TestDataDirLockAndVerify(t *testing.T) {
	bin := buildServer(t)
	dataDir := t.TempDir()
	cfgFor := func(port int) string {
		return writeCfg(t, fmt.Sprintf("tickTime=2000\nclientPort=%d\nclientPortAddress=127.0.0.1\ndataDir=%s\n", port, dataDir))
	}
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	first := exec.Command(bin, cfgFor(port))
	require.NoError(t, first.Start())
	t.Cleanup(func() { first.Process.Kill(); first.Wait() })
	waitListening(t, addr)
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	for i := 0; i < 20; i++ {
		_, err := c.Create(fmt.Sprintf("/k%02d", i), []byte(fmt.Sprintf("written-by-client-%02d", i)), 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err)
	}
	c.Close()

	out, code := runBin(t, bin, cfgFor(freePort(t)))
	require.NotEqual(t, 0, code)
	require.Contains(t, out, dataDir)
	require.Contains(t, out, fmt.Sprintf("locked by process %d", first.Process.Pid))
	out, code = runBin(t, bin, "verify", dataDir)
	require.NotEqual(t, 0, code, "verify refuses a directory in use: %s", out)

	require.NoError(t, first.Process.Signal(syscall.SIGTERM))
	first.Wait()
	out, code = runBin(t, bin, "verify", dataDir)
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "no damage")

	segs, err := filepath.Glob(filepath.Join(dataDir, "zkraft-wal", "*.wal"))
	require.NoError(t, err)
	require.Len(t, segs, 1)
	data, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	off := bytes.Index(data, []byte("written-by-client-03"))
	require.Greater(t, off, 0)
	f, err := os.OpenFile(segs[0], os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte("X"), int64(off))
	require.NoError(t, err)
	require.NoError(t, f.Close())

	out, code = runBin(t, bin, "verify", dataDir)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "DAMAGED "+segs[0]+": at offset ")

	out, code = runBin(t, bin, cfgFor(freePort(t)))
	require.Equal(t, 1, code, out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	require.Contains(t, last, "damaged data in "+segs[0]+" at offset")
	require.Contains(t, last, "zkserver verify")
	require.NotContains(t, out, "goroutine", "no panic")
}
