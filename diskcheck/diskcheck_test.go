package diskcheck

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

const session int64 = 0x0100000000000001

// fill writes count znodes through a durable node on dir, with a snapshot
// halfway, and stops it; with noSync its log is raft-boltdb without syncing.
func fill(t *testing.T, dir string, noSync bool, count int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := consensus.Start(ctx, consensus.Config{ServerID: 1, Storage: consensus.Storage{DataDir: dir, NoSync: noSync, Bolt: noSync}})
	require.NoError(t, err)
	defer n.Close()
	_, err = n.Propose(ctx, &consensus.Command{Kind: consensus.KindCreateSession, Session: session, Timeout: 10000, Time: 1})
	require.NoError(t, err)
	for i := 0; i < count; i++ {
		body := &wire.CreateRequest{Path: fmt.Sprintf("/n%d", i), Data: []byte(fmt.Sprintf("data-%04d", i)), ACL: wire.OpenACLUnsafe}
		_, err := n.Propose(ctx, &consensus.Command{Kind: consensus.KindTxn, Txn: &datatree.Txn{Time: 1, Session: session, Op: wire.OpCreate, Body: body}})
		require.NoError(t, err)
		if i == count/2 {
			require.NoError(t, n.Snapshot())
		}
	}
}

func flip(t *testing.T, path string, needle string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	i := bytes.Index(data, []byte(needle))
	require.GreaterOrEqual(t, i, 0, "%q in %s", needle, path)
	data[i] ^= 0x20
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

func TestRunReportsEachFile(t *testing.T) {
	for _, noSync := range []bool{false, true} {
		t.Run(fmt.Sprintf("noSync=%v", noSync), func(t *testing.T) {
			dir := t.TempDir()
			fill(t, dir, noSync, 20)
			var out bytes.Buffer
			require.NoError(t, Run(&out, dir, ""))
			require.Contains(t, out.String(), "no damage")
			require.Equal(t, 3, strings.Count(out.String(), "\n"), "the log, the snapshot, the verdict:\n%s", out.String())
			require.Contains(t, out.String(), "ok      ")

			log := filepath.Join(dir, "zkraft-raft.db")
			if !noSync {
				segs, _ := filepath.Glob(filepath.Join(dir, "zkraft-wal", "*.wal"))
				require.Len(t, segs, 1)
				log = segs[0]
			}
			flip(t, log, "data-0003")
			states, _ := filepath.Glob(filepath.Join(dir, "zkraft-snapshots", "snapshots", "*", "state.bin"))
			require.Len(t, states, 1)
			flip(t, states[0], "data-0001")
			out.Reset()
			err := Run(&out, dir, "")
			require.ErrorIs(t, err, ErrDamaged)
			require.Contains(t, out.String(), "DAMAGED "+log+": ")
			require.Contains(t, out.String(), "DAMAGED "+states[0]+": ")
			require.Contains(t, out.String(), "2 of 2 files damaged")
		})
	}
}

func TestRunRefusesDirInUseAndEmptyDir(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := consensus.Start(ctx, consensus.Config{ServerID: 1, Storage: consensus.Storage{DataDir: dir}})
	require.NoError(t, err)
	err = Run(&bytes.Buffer{}, dir, "")
	require.ErrorIs(t, err, consensus.ErrDirInUse)
	require.NoError(t, n.Close())
	require.ErrorContains(t, Run(&bytes.Buffer{}, t.TempDir(), ""), "no zkraft log")
}

// TestRunNotesTornTail: a crash's torn tail is a note, not damage, and
// verify leaves it for the next start to truncate.
func TestRunNotesTornTail(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, false, 5)
	segs, _ := filepath.Glob(filepath.Join(dir, "zkraft-wal", "*.wal"))
	require.Len(t, segs, 1)
	data, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	end := bytes.LastIndexFunc(data, func(r rune) bool { return r != 0 })
	end = (end/8 + 1) * 8                                       // frames are 8-byte aligned
	torn := []byte{1, 0, 0, 0, 64, 0, 0, 0, 'h', 'a', 'l', 'f'} // an entry frame cut short
	copy(data[end:], torn)
	require.NoError(t, os.WriteFile(segs[0], data, 0o644))
	var out bytes.Buffer
	require.NoError(t, Run(&out, dir, ""))
	require.Contains(t, out.String(), "note    "+segs[0])
	require.Contains(t, out.String(), fmt.Sprintf("torn tail from a crash: %d bytes", len(torn)))
	after, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	require.Equal(t, data, after, "verify changes nothing")
}
