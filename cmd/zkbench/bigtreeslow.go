package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// slowWrites places the k longest stalls among the servers' snapshots
// (spans[i] are server i's, as watchSnapshots saw them, without
// snapGrace): for each, the longest write in it, when it began and where
// that fell in the nearest snapshot, so that a run shows whether the
// writes wait at a snapshot's start (the tree frozen for it), during its
// walk, or at its end (the file synced, the log compacted). Writes in
// flight together are one stall: when every writer waits at once only
// the longest is listed.
func slowWrites(writes []opSpan, spans [][]span, k int) string {
	slow := slices.Clone(writes)
	slices.SortFunc(slow, func(a, b opSpan) int { return cmp.Compare(b.latency(), a.latency()) })
	var stalls []opSpan
	var taken []span // the stalls' own spans, for opSpan.overlaps
	for _, w := range slow {
		if len(stalls) == k {
			break
		}
		if !w.overlaps(taken) {
			stalls = append(stalls, w)
			taken = append(taken, span{w.start, w.end})
		}
	}
	parts := make([]string, 0, len(stalls))
	for _, w := range stalls {
		where := whereIn(w, spans)
		if near := edgesNear(w, spans); near != "" {
			where += "; " + near
		}
		parts = append(parts, fmt.Sprintf("%v at %s (%s)", w.latency().Round(100*time.Microsecond), secs(w.start), where))
	}
	return strings.Join(parts, "; ")
}

// whereIn says where write w began relative to the snapshot nearest it.
func whereIn(w opSpan, spans [][]span) string {
	best, bestGap, server := span{}, int64(-1), 0
	for i, ss := range spans {
		for _, s := range ss {
			gap := max(s.from-w.end, w.start-s.to, 0)
			if bestGap < 0 || gap < bestGap {
				best, bestGap, server = s, gap, i+1
			}
		}
	}
	if bestGap < 0 {
		return "no snapshot"
	}
	switch {
	case w.end < best.from:
		return fmt.Sprintf("ended %s before server %d's snapshot", secs(best.from-w.end), server)
	case w.start > best.to:
		return fmt.Sprintf("began %s after server %d's snapshot ended", secs(w.start-best.to), server)
	case w.start < best.from:
		return fmt.Sprintf("began %s before server %d's snapshot, in flight at its start", secs(best.from-w.start), server)
	default:
		return fmt.Sprintf("in server %d's snapshot: began %s after its start, %s before its end",
			server, secs(w.start-best.from), secs(best.to-w.start))
	}
}

// edgesNear lists the snapshot starts and ends, on any server, from a
// second before write w began until it ended: a stall in one server's
// walk may come from another's freeze or compaction.
func edgesNear(w opSpan, spans [][]span) string {
	var near []string
	note := func(server int, what string, at int64) {
		if at >= w.start-int64(time.Second) && at <= w.end {
			near = append(near, fmt.Sprintf("server %d's %s at %s", server, what, secs(at)))
		}
	}
	for i, ss := range spans {
		for _, s := range ss {
			note(i+1, "snapshot began", s.from)
			note(i+1, "snapshot ended", s.to)
		}
	}
	if len(near) == 0 {
		return ""
	}
	return "near " + strings.Join(near, ", ")
}

// secs formats a time or a length of time in nanoseconds as seconds, to
// the hundredth.
func secs(ns int64) string { return fmt.Sprintf("%.2fs", time.Duration(ns).Seconds()) }
