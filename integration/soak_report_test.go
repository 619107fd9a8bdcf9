package integration

import (
	"fmt"
	"sort"
	"time"
)

// report logs the soak's summary table and fails the test on any finding.
func (s *soak) report() {
	t := s.t
	elapsed := time.Since(s.start).Round(time.Second)
	var rows [][]string
	for _, k := range opKinds {
		st := s.ops[k]
		rows = append(rows, []string{k, fmt.Sprint(st.ok.Load()), fmt.Sprint(st.unknown.Load()), fmt.Sprint(st.failed.Load()),
			dur(st.lat.quantile(0.5)), dur(st.lat.quantile(0.99)), dur(st.lat.quantile(1))})
	}
	out := fmt.Sprintf("soak summary: %v, seed %d, period %v\n\nclient operations (unknown: the connection broke first)\n", elapsed, s.cfg.seed, s.cfg.period)
	out += table([]string{"kind", "ok", "unknown", "no read", "p50", "p99", "max"}, rows)

	rows = nil
	for _, f := range faultCycle {
		var ds []time.Duration
		for _, w := range s.unavail {
			if w.fault == f {
				ds = append(ds, w.d)
			}
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		win := "-"
		if len(ds) > 0 {
			win = fmt.Sprintf("%s / %s / %s", dur(ds[0]), dur(ds[len(ds)/2]), dur(ds[len(ds)-1]))
		}
		rows = append(rows, []string{f, fmt.Sprint(s.faults[f]), win})
	}
	out += "\nfaults (unavailability: fault until the first write issued after it is acknowledged)\n"
	out += table([]string{"fault", "injected", "unavailable min / median / max"}, rows)

	l := s.lin
	out += "\nchecks\n" + table([]string{"check", "result"}, [][]string{
		{"linearizability segments", fmt.Sprintf("%d checked: %d ok, %d illegal, %d checker timeouts (%v limit)", l.segments, l.ok, l.illegal, l.timedOut, soakLinCheckTimeout)},
		{"linearizability operations", fmt.Sprintf("%d checked, %d of unknown outcome, %d carried into the next segment; slowest check %v", l.ops, l.unknownOps, l.carried, l.maxCheck.Round(time.Millisecond))},
		{"acknowledged writes", fmt.Sprintf("%d verified on all 3 servers", s.writtenVerified())},
		{"ephemeral sessions", fmt.Sprintf("%d sessions; %d expiries", len(s.ephs), s.ephExpiries())},
		{"watch events", s.watchFigures()},
		{"slow clients", s.slowFigures()},
	})

	rows = nil
	if n := len(s.samples); n > 0 {
		first, last := s.samples[min(1, n-1)], s.samples[n-1]
		var maxH uint64
		maxG := 0
		for _, x := range s.samples {
			maxH, maxG = max(maxH, x.heapInuse), max(maxG, x.goroutines)
		}
		rows = [][]string{
			{"heap in use (after GC)", mib(float64(first.heapInuse)), mib(float64(last.heapInuse)), mib(float64(maxH))},
			{"goroutines", fmt.Sprint(first.goroutines), fmt.Sprint(last.goroutines), fmt.Sprint(maxG)},
		}
	}
	out += fmt.Sprintf("\nresources (%d samples, one per period on a healthy ensemble; first = after period 1)\n", len(s.samples))
	out += table([]string{"resource", "first", "last", "max"}, rows)
	for _, x := range s.samples {
		out += fmt.Sprintf("  sample at %v: heap %s, %d goroutines\n", x.at.Round(time.Second), mib(float64(x.heapInuse)), x.goroutines)
	}
	t.Log(out)

	problems := append(s.found.all(), steadiness(s.samples)...)
	for _, p := range problems {
		t.Errorf("soak finding: %s", p)
	}
	if l.ok == 0 {
		t.Errorf("no linearizability segment was checked successfully")
	}
}

func dur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

func (s *soak) ephExpiries() (n int64) {
	for _, e := range s.ephs {
		n += e.expiries.Load()
	}
	return n
}

func (s *soak) watchFigures() string {
	var n, r int64
	for _, w := range s.watchers {
		n, r = n+w.events.Load(), r+w.resynced.Load()
	}
	return fmt.Sprintf("%d NodeDataChanged seen in order by %d watchers; %d times a reconnect landed on a server behind the event (sync, then read)", n, len(s.watchers), r)
}

func (s *soak) slowFigures() string {
	var b, r, c int64
	for _, sc := range s.slows {
		b, r, c = b+sc.batches.Load(), r+sc.replies.Load(), c+sc.reconnects.Load()
	}
	return fmt.Sprintf("%d batches of %d pipelined reads, %d replies in order, %d reconnects", b, slowBatch, r, c)
}
