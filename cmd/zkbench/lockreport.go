package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// lockReporter prints the lock rounds as they end (text) or everything at
// the end (JSON), and the medians over the rounds of each target and lock
// client with their ratios.
type lockReporter struct {
	w       io.Writer
	o       *options
	targets []*target
	clients []string
	results []*lockResult
}

func newLockReporter(w io.Writer, o *options, targets []*target, clients []string) *lockReporter {
	return &lockReporter{w: w, o: o, targets: targets, clients: clients}
}

func (r *lockReporter) header() {
	if r.o.json {
		return
	}
	o := r.o
	fmt.Fprintf(r.w, "op=lock clients=%d (%s) warmup=%v duration=%v rounds=%d role=%s kills=%d session-timeout=%v\n",
		o.sessions, strings.Join(r.clients, ","), o.warmup, o.duration, o.rounds, o.role, o.kills, o.sessionTimeout)
	for _, t := range r.targets {
		fmt.Fprintf(r.w, "%s: %s: %s, %s\n", t.label, t.name, t.desc, strings.Join(t.addrs, ","))
	}
	fmt.Fprintf(r.w, "%-5s %-6s %-7s %9s %9s %9s %9s %9s %10s %6s %7s\n",
		"round", "target", "client", "sections", "sect/s", "handoff50", "handoff99", "max", "longestgap", "errors", "ldr/epoch")
}

func (r *lockReporter) add(res *lockResult) {
	r.results = append(r.results, res)
	if r.o.json {
		return
	}
	fmt.Fprintf(r.w, "%-5d %-6s %-7s %9d %9.0f %9v %9v %9v %10v %6d %3d/%-3d\n",
		res.Round, res.Target, res.Client, res.Sections, res.SectionsSec, res.P50, res.P99, res.Max,
		res.LongestGap, res.Errors, res.LeaderChanges, res.Elections)
	for _, role := range slices.Sorted(maps.Keys(res.ByRole)) {
		s := res.ByRole[role]
		fmt.Fprintf(r.w, "      waiters on %-8s handoffs %6d p50 %9v p99 %9v\n", role, s.Handoffs, s.P50, s.P99)
	}
	for _, k := range res.Kills {
		fmt.Fprintf(r.w, "      leader %s killed at %v, a leader again after %v", k.Server, k.At, k.NewLeader)
		if k.Err != "" {
			fmt.Fprintf(r.w, " (%s)", k.Err)
		}
		fmt.Fprintln(r.w)
	}
	if res.FirstError != "" {
		fmt.Fprintf(r.w, "      first error: %s\n", res.FirstError)
	}
}

// lockMetric is one figure of a lock round.
type lockMetric struct {
	name, key string
	get       func(*lockResult) float64
}

func roleP50(role string) func(*lockResult) float64 {
	return func(r *lockResult) float64 { return r.ByRole[role].P50.micros() }
}

var lockMetrics = []lockMetric{
	{"sections/s", "sections_per_sec", func(r *lockResult) float64 { return r.SectionsSec }},
	{"handoff p50", "handoff_p50_us", func(r *lockResult) float64 { return r.P50.micros() }},
	{"handoff p99", "handoff_p99_us", func(r *lockResult) float64 { return r.P99.micros() }},
	{"p50, on leader", "leader_p50_us", roleP50("leader")},
	{"p50, on follower", "follower_p50_us", roleP50("follower")},
	{"longest gap", "longest_gap_us", func(r *lockResult) float64 { return r.LongestGap.micros() }},
}

// lockSummary is the median of each metric for one target and client.
type lockSummary struct {
	Target string             `json:"target"`
	Client string             `json:"client"`
	Median map[string]float64 `json:"median"`
}

// lockRatio is the median over the rounds of the ratio of two series.
type lockRatio struct {
	Of     string             `json:"of"` // e.g. "A go / B curator"
	Median map[string]float64 `json:"median"`
}

// summarizeLockRounds returns the medians per target and client, and the
// ratios of every A series to every B series.
func summarizeLockRounds(results []*lockResult, clients []string, targets int) ([]lockSummary, []lockRatio) {
	series := map[string][]*lockResult{} // "A go" -> its rounds in order
	for _, r := range results {
		k := r.Target + " " + r.Client
		series[k] = append(series[k], r)
	}
	var sums []lockSummary
	for t := range targets {
		for _, c := range clients {
			rs := series[string(rune('A'+t))+" "+c]
			if len(rs) == 0 {
				continue
			}
			s := lockSummary{Target: rs[0].Target, Client: c, Median: map[string]float64{}}
			for _, m := range lockMetrics {
				var xs []float64
				for _, r := range rs {
					xs = append(xs, m.get(r))
				}
				s.Median[m.key] = median(xs)
			}
			sums = append(sums, s)
		}
	}
	var ratios []lockRatio
	if targets == 2 {
		for _, a := range clients {
			for _, b := range clients {
				ratios = append(ratios, ratioOf("A "+a, "B "+b, series["A "+a], series["B "+b]))
			}
		}
	}
	return sums, ratios
}

// ratioOf pairs two series round by round.
func ratioOf(an, bn string, as, bs []*lockResult) lockRatio {
	lr := lockRatio{Of: an + " / " + bn, Median: map[string]float64{}}
	for _, m := range lockMetrics {
		var xs []float64
		for i := range min(len(as), len(bs)) {
			if a, b := m.get(as[i]), m.get(bs[i]); a != 0 && b != 0 {
				xs = append(xs, a/b)
			}
		}
		lr.Median[m.key] = median(xs)
	}
	return lr
}

func (r *lockReporter) finish() error {
	sums, ratios := summarizeLockRounds(r.results, r.clients, len(r.targets))
	if r.o.json {
		enc := json.NewEncoder(r.w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Op       string        `json:"op"`
			Sessions int           `json:"clients"`
			Kills    int           `json:"kills"`
			Targets  []jsonTarget  `json:"targets"`
			Rounds   []*lockResult `json:"rounds"`
			Medians  []lockSummary `json:"medians"`
			Ratios   []lockRatio   `json:"ratios,omitempty"`
		}{"lock", r.o.sessions, r.o.kills, r.jsonTargets(), r.results, sums, ratios})
	}
	fmt.Fprintf(r.w, "\n%-21s", fmt.Sprintf("median of %d rounds", r.o.rounds))
	for _, m := range lockMetrics {
		fmt.Fprintf(r.w, " %16s", m.name)
	}
	fmt.Fprintln(r.w)
	for _, s := range sums {
		fmt.Fprintf(r.w, "%-21s", s.Target+" "+s.Client)
		for _, m := range lockMetrics {
			fmt.Fprintf(r.w, " %16s", fmtLockMetric(m, s.Median[m.key]))
		}
		fmt.Fprintln(r.w)
	}
	for _, lr := range ratios {
		fmt.Fprintf(r.w, "%-21s", lr.Of)
		for _, m := range lockMetrics {
			if v := lr.Median[m.key]; v != 0 {
				fmt.Fprintf(r.w, " %16.2f", v)
			} else {
				fmt.Fprintf(r.w, " %16s", "-")
			}
		}
		fmt.Fprintln(r.w)
	}
	if len(ratios) > 0 {
		fmt.Fprintln(r.w, "(ratios: the median of the per-round ratios; below 1 means fewer sections/s or shorter latencies and gaps for A)")
	}
	return nil
}

func fmtLockMetric(m lockMetric, v float64) string {
	if v == 0 && m.key != "sections_per_sec" {
		return "-" // e.g. no client on a server of that role
	}
	if m.key == "sections_per_sec" {
		return fmt.Sprintf("%.0f", v)
	}
	return latency(v * float64(time.Microsecond)).String()
}

func (r *lockReporter) jsonTargets() []jsonTarget {
	var ts []jsonTarget
	for _, t := range r.targets {
		ts = append(ts, jsonTarget{t.label, t.name, t.desc, t.addrs})
	}
	return ts
}
