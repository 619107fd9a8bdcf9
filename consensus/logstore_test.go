package consensus

import (
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

func entries(lo, hi uint64, term uint64) []*raft.Log {
	var out []*raft.Log
	for i := lo; i <= hi; i++ {
		out = append(out, &raft.Log{Index: i, Term: term, Data: []byte{byte(i)}})
	}
	return out
}

func requireRange(t *testing.T, s *memLogStore, first, last uint64) {
	t.Helper()
	f, _ := s.FirstIndex()
	l, _ := s.LastIndex()
	require.Equal(t, [2]uint64{first, last}, [2]uint64{f, l})
	var e raft.Log
	if last > 0 {
		require.NoError(t, s.GetLog(first, &e))
		require.Equal(t, first, e.Index)
		require.NoError(t, s.GetLog(last, &e))
		require.Equal(t, last, e.Index)
		require.ErrorIs(t, s.GetLog(last+1, &e), raft.ErrLogNotFound)
	}
	if first > 1 {
		require.ErrorIs(t, s.GetLog(first-1, &e), raft.ErrLogNotFound)
	}
}

// TestMemLogStoreAsRaftUsesIt covers the operations Raft performs on a log:
// appends, compaction of a prefix, a follower's truncation of a
// conflicting suffix, and the first append after an installed snapshot.
func TestMemLogStoreAsRaftUsesIt(t *testing.T) {
	s := newMemLogStore(false)
	requireRange(t, s, 0, 0)
	require.NoError(t, s.StoreLogs(entries(1, 100, 1)))
	requireRange(t, s, 1, 100)

	// The store copies the entry: changing the caller's struct later
	// changes nothing stored.
	l := &raft.Log{Index: 101, Term: 1}
	require.NoError(t, s.StoreLog(l))
	l.Term = 9
	var got raft.Log
	require.NoError(t, s.GetLog(101, &got))
	require.Equal(t, uint64(1), got.Term)

	require.NoError(t, s.DeleteRange(1, 60)) // compaction
	requireRange(t, s, 61, 101)
	require.NoError(t, s.DeleteRange(1, 30)) // already gone
	requireRange(t, s, 61, 101)
	require.NoError(t, s.DeleteRange(90, 101)) // conflicting suffix
	requireRange(t, s, 61, 89)
	require.NoError(t, s.StoreLogs(entries(90, 95, 2)))
	require.NoError(t, s.GetLog(90, &got))
	require.Equal(t, uint64(2), got.Term)
	require.ErrorIs(t, s.DeleteRange(70, 80), errNotContiguous)

	// Storing over existing entries replaces them and what follows.
	require.NoError(t, s.StoreLogs(entries(93, 93, 3)))
	requireRange(t, s, 61, 93)
	require.Error(t, s.StoreLog(&raft.Log{Index: 10}), "before the first entry held")

	// After a snapshot up to 499 the next entry is 500: what came
	// before is covered by the snapshot and dropped.
	require.NoError(t, s.StoreLogs(entries(500, 510, 4)))
	requireRange(t, s, 500, 510)

	require.NoError(t, s.DeleteRange(1, 1000)) // everything
	requireRange(t, s, 0, 0)
	require.NoError(t, s.StoreLogs(entries(700, 700, 4)))
	requireRange(t, s, 700, 700)
}

// TestMemLogStoreWindow: a windowed store forgets entries once they are
// applied, keeping windowKeep of them, and never an unapplied one.
func TestMemLogStoreWindow(t *testing.T) {
	s := newMemLogStore(true)
	applied := uint64(0)
	require.NoError(t, s.StoreLogs(entries(1, 500, 1)))
	requireRange(t, s, 1, 500) // not bound to Raft yet: keeps everything
	s.setApplied(func() uint64 { return applied })

	require.NoError(t, s.StoreLogs(entries(501, 600, 1)))
	requireRange(t, s, 1, 600) // nothing applied: nothing forgotten

	applied = 450
	require.NoError(t, s.StoreLogs(entries(601, 610, 1)))
	requireRange(t, s, 451, 610) // unapplied entries stay, however many

	applied = 610
	require.NoError(t, s.StoreLogs(entries(611, 611, 1)))
	requireRange(t, s, 611-windowKeep+1, 611)
	require.LessOrEqual(t, cap(s.entries), 4*windowKeep, "the dropped prefix's array is let go")

	// Raft's compaction after a requested snapshot finds less to delete.
	require.NoError(t, s.DeleteRange(1, 600))
	requireRange(t, s, 601, 611)
}
