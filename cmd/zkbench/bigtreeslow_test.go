package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSlowWritesPlacesThemInSnapshots: the longest stalls come first,
// each placed against the snapshot nearest it, on whichever server, and
// writes in flight together count once.
func TestSlowWritesPlacesThemInSnapshots(t *testing.T) {
	s := int64(time.Second)
	spans := [][]span{{{from: 10 * s, to: 20 * s}}, {{from: 30 * s, to: 40 * s}}}
	writes := []opSpan{
		{start: 12 * s, end: 12*s + s/2},  // 500 ms inside server 1's
		{start: 12 * s, end: 12*s + s/3},  // the same stall
		{start: 41 * s, end: 41*s + s/5},  // 200 ms just after server 2's
		{start: 5 * s, end: 5*s + s/10},   // 100 ms before server 1's
		{start: 29 * s, end: 30*s + s/20}, // 1.05 s across server 2's start
		{start: 25 * s, end: 25*s + 1},    // fast: left out
	}
	require.Equal(t, "1.05s at 29.00s (began 1.00s before server 2's snapshot, in flight at its start; near server 2's snapshot began at 30.00s); 500ms at 12.00s (in server 1's snapshot: began 2.00s after its start, 8.00s before its end); "+
		"200ms at 41.00s (began 1.00s after server 2's snapshot ended; near server 2's snapshot ended at 40.00s); "+
		"100ms at 5.00s (ended 4.90s before server 1's snapshot)", slowWrites(writes, spans, 4))
	require.Equal(t, "no snapshot", whereIn(writes[0], nil))
}
