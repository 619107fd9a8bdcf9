//go:build linux

package consensus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// mountTmpfs mounts a tmpfs of the given size on a new directory, or
// skips the test where mounting is not allowed (not root, a container
// without CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s)", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// TestRealFullDisk fills a real file system (an 80 MB tmpfs, where
// raft-wal's first 64 MiB segment fits and its second does not), then
// grows it, as an operator freeing space would: the node refuses writes
// without changing its term while full, and resumes by itself.
func TestRealFullDisk(t *testing.T) {
	dir := mountTmpfs(t, "80m")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := Start(ctx, Config{ServerID: 1, Tree: datatree.Config{}, Storage: Storage{DataDir: filepath.Join(dir, "data")}})
	require.NoError(t, err)
	defer n.Close()
	propose(t, n, &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
	term := n.Epoch()

	data := make([]byte, 900<<10)
	inFlight := make(chan error, 1)
	written := 0
	for i := 0; ; i++ {
		require.Less(t, i, 200, "the disk never filled")
		cmd := txnCmd(wire.OpCreate, &wire.CreateRequest{Path: fmt.Sprintf("/big-%03d", i), Data: data, ACL: wire.OpenACLUnsafe})
		fut := n.ProposeAsync(cmd)
		done := make(chan error, 1)
		go func() { _, err := fut.Wait(); done <- err }()
		var finished bool
		waitFor(t, "the write to commit or the disk to be reported full", func() bool {
			select {
			case err := <-done:
				require.NoError(t, err)
				finished = true
				return true
			default:
				return n.DiskState().Full
			}
		})
		if finished {
			written++
			continue
		}
		// This append waits for space.
		go func() { inFlight <- <-done }()
		break
	}
	require.Greater(t, written, 50)
	_, err = n.Propose(context.Background(), createAt("/refused"))
	require.ErrorIs(t, err, ErrDiskFull)
	require.Contains(t, n.DiskState().Cause, "no space left on device")
	require.Equal(t, term, n.Epoch())

	out, err := exec.Command("mount", "-o", "remount,size=200m", dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	select {
	case err := <-inFlight:
		require.NoError(t, err, "the waiting write commits once there is space")
	case <-time.After(10 * time.Second):
		t.Fatalf("writes did not resume after the file system grew: %+v", n.DiskState())
	}
	require.False(t, n.DiskState().Full)
	propose(t, n, createAt("/after"))
	require.Equal(t, term, n.Epoch())
	require.NoError(t, n.Close())

	// Nothing acknowledged was lost: a restart finds every write.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	n2, err := Start(ctx2, Config{ServerID: 1, Tree: datatree.Config{}, Storage: Storage{DataDir: filepath.Join(dir, "data")}})
	require.NoError(t, err)
	defer n2.Close()
	n2.Read(func(st *State) {
		for _, p := range []string{fmt.Sprintf("/big-%03d", written), "/after"} {
			_, _, err := st.Tree.GetData(p)
			require.NoError(t, err, p)
		}
		_, _, err := st.Tree.GetData("/refused")
		require.True(t, errors.Is(err, wire.CodeNoNode), "the refused write is not there")
	})
}
