package consensus

import (
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// A follower that drops a conflicting suffix of its log (Raft's "clearing
// log suffix", after a leader change) and is restarted twice must still
// open its log. raft-wal v0.4.0 marked the tail segment sealed without
// writing its index, so the second start refused the log as damaged
// ("sealed segment ends before its index frame"); seen in
// TestLeaderSIGKILLUnderLoadLosesNoAcknowledgedWrite. v0.4.1 seals it.
func TestLogOpensAfterItsSuffixWasCleared(t *testing.T) {
	dir := t.TempDir()
	open := func() *stores {
		st, err := openDurableLog(dir, Storage{}, false, hclog.NewNullLogger(), nil)
		require.NoError(t, err)
		return st
	}
	entries := func(from, to, term uint64) []*raft.Log {
		var out []*raft.Log
		for i := from; i <= to; i++ {
			out = append(out, &raft.Log{Index: i, Term: term, Type: raft.LogCommand, Data: []byte{byte(i)}})
		}
		return out
	}
	st := open()
	require.NoError(t, st.logs.StoreLogs(entries(1, 10, 1)))
	require.NoError(t, st.logs.DeleteRange(7, 10), "the suffix the new leader does not have")
	require.NoError(t, st.logs.StoreLogs(entries(7, 12, 2)))
	require.NoError(t, st.close())

	last := uint64(12)
	for restart := 1; restart <= 2; restart++ {
		st = open()
		for i := uint64(1); i <= last; i++ {
			var l raft.Log
			require.NoError(t, st.logs.GetLog(i, &l), "restart %d, entry %d", restart, i)
			require.Equal(t, i, l.Index)
			require.Equal(t, map[bool]uint64{true: 1, false: 2}[i <= 6], l.Term)
		}
		last++
		require.NoError(t, st.logs.StoreLogs(entries(last, last, 2)))
		require.NoError(t, st.close())
	}
}
