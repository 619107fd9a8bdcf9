package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// lockRecord is one acquisition of the lock by one client, its times
// relative to the start of the measured window (negative in the warmup).
type lockRecord struct {
	client   int
	acquired time.Duration // when the acquire returned
	handoff  time.Duration // since the previous holder began its release; -1: none
	done     time.Duration // when its own release returned; -1: the release failed
}

// lockRun is what one driver (Go or Curator) reports for one round.
type lockRun struct {
	records []lockRecord
	errors  uint64
	first   string // the first error
}

// lockStats are one round's figures over the measured window.
type lockStats struct {
	Sections    uint64  `json:"sections"` // releases that returned within the window
	SectionsSec float64 `json:"sections_per_sec"`
	Handoffs    uint64  `json:"handoffs"`
	P50         latency `json:"handoff_p50_us"`
	P99         latency `json:"handoff_p99_us"`
	Max         latency `json:"handoff_max_us"`
	// ByRole splits the handoffs by the srvr Mode of the server the
	// acquiring client is connected to (only when each client is pinned
	// to one server).
	ByRole map[string]roleStats `json:"by_role,omitempty"`
	// LongestGap is the longest stretch of the window in which no client
	// completed a critical section, counting the window's edges.
	LongestGap latency `json:"longest_gap_us"`
	GapStart   latency `json:"longest_gap_start_us"`
}

// roleStats are the handoffs to clients on servers of one role.
type roleStats struct {
	Handoffs uint64  `json:"handoffs"`
	P50      latency `json:"p50_us"`
	P99      latency `json:"p99_us"`
}

// summarizeLock computes the figures of the records inside [0, window);
// roleOf maps a client to its server's role ("" when not pinned).
func summarizeLock(run *lockRun, window time.Duration, roleOf func(client int) string) lockStats {
	all := newHistogram()
	roles := map[string]*histogram{}
	var done []time.Duration
	for _, r := range run.records {
		if r.done >= 0 && r.done < window {
			done = append(done, r.done)
		}
		if r.acquired < 0 || r.acquired >= window || r.handoff < 0 {
			continue
		}
		all.record(r.handoff)
		if role := roleOf(r.client); role != "" {
			if roles[role] == nil {
				roles[role] = newHistogram()
			}
			roles[role].record(r.handoff)
		}
	}
	s := lockStats{
		Sections:    uint64(len(done)),
		SectionsSec: float64(len(done)) / window.Seconds(),
		Handoffs:    all.count(),
		P50:         latency(all.percentile(50)),
		P99:         latency(all.percentile(99)),
		Max:         latency(all.maximum()),
	}
	gap, at := longestGap(done, window)
	s.LongestGap, s.GapStart = latency(gap), latency(at)
	if len(roles) > 0 {
		s.ByRole = map[string]roleStats{}
		for role, h := range roles {
			s.ByRole[role] = roleStats{Handoffs: h.count(), P50: latency(h.percentile(50)), P99: latency(h.percentile(99))}
		}
	}
	return s
}

// longestGap returns the longest interval of [0, window) that holds none
// of the times ts, and where it starts.
func longestGap(ts []time.Duration, window time.Duration) (gap, start time.Duration) {
	s := slices.Clone(ts)
	slices.Sort(s)
	prev := time.Duration(0)
	for _, t := range append(s, window) {
		if t-prev > gap {
			gap, start = t-prev, prev
		}
		prev = t
	}
	return gap, start
}

// errNoStart is returned by parseCuratorOutput when LockBench never began
// its measured window.
var errNoStart = errors.New("LockBench printed no start line")

// parseCuratorOutput reads LockBench's output (see curator/LockBench.java):
// it calls started, if not nil, at the start line, and returns the records
// and errors once it has read the end line.
func parseCuratorOutput(r io.Reader, started func()) (*lockRun, error) {
	run := &lockRun{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var seenStart bool
	for sc.Scan() {
		line := sc.Text()
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "ready":
		case "start":
			seenStart = true
			if started != nil {
				started()
			}
		case "acq":
			rec, err := parseAcq(rest)
			if err != nil {
				return nil, fmt.Errorf("LockBench line %q: %w", line, err)
			}
			run.records = append(run.records, rec)
		case "err":
			f := strings.SplitN(rest, " ", 3)
			if len(f) < 2 {
				return nil, fmt.Errorf("LockBench line %q: want err CLIENT COUNT MESSAGE", line)
			}
			n, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("LockBench line %q: %w", line, err)
			}
			run.errors += n
			if run.first == "" && len(f) == 3 {
				run.first = f[2]
			}
		case "end":
			if !seenStart {
				return nil, errNoStart
			}
			return run, nil
		default:
			return nil, fmt.Errorf("LockBench printed %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !seenStart {
		return nil, errNoStart
	}
	return nil, errors.New("LockBench output ended without its end line")
}

// parseAcq parses "CLIENT T_NS HANDOFF_NS DONE_NS".
func parseAcq(s string) (lockRecord, error) {
	f := strings.Fields(s)
	if len(f) != 4 {
		return lockRecord{}, errors.New("want acq CLIENT T_NS HANDOFF_NS DONE_NS")
	}
	var v [4]int64
	for i, x := range f {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return lockRecord{}, err
		}
		v[i] = n
	}
	if v[0] < 0 {
		return lockRecord{}, errors.New("negative client")
	}
	return lockRecord{client: int(v[0]), acquired: time.Duration(v[1]),
		handoff: time.Duration(v[2]), done: time.Duration(v[3])}, nil
}
