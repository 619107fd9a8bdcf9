package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// stormReporter prints the storm rounds as they end (text) or everything
// at the end (JSON), then the median time to the last session per target
// and its ratio to the second target's, against the goal (at most half).
type stormReporter struct {
	w       io.Writer
	o       *options
	targets []*target
	results []*stormResult
}

// stormGoal is the bound on the ratio of the times to the last
// session back, first target over second (zkraft over ZooKeeper).
const stormGoal = 0.5

func newStormReporter(w io.Writer, o *options, targets []*target) *stormReporter {
	return &stormReporter{w: w, o: o, targets: targets}
}

func (r *stormReporter) header() {
	if r.o.json {
		return
	}
	o := r.o
	fmt.Fprintf(r.w, "op=%s n=%d session-timeout=%v rounds=%d inflight=%d\n", o.op, o.n, o.sessionTimeout, o.rounds, o.inflight)
	for _, t := range r.targets {
		fmt.Fprintf(r.w, "%s: %s: %s, %s\n", t.label, t.name, t.desc, strings.Join(t.addrs, ","))
	}
	fmt.Fprintf(r.w, "%-5s %-6s %-4s %10s %7s %7s %7s %7s %7s %7s %7s %6s %9s %9s %8s\n",
		"round", "target", "mode", "lastback", "discon", "notback", "expired", "idchg", "ephmiss", "wmiss", "wdup", "elect", "peakRSS", "RSSbefore", "cpu")
}

func (r *stormReporter) add(res *stormResult) {
	r.results = append(r.results, res)
	if r.o.json {
		return
	}
	fmt.Fprintf(r.w, "%-5d %-6s %-4s %8.0fms %7d %7d %7d %7d %7d %7d %7d %6d %8.0fM %8.0fM %7.1fs\n",
		res.Round, res.Target, res.Mode, res.LastBackMs, res.Disconnected, res.NotBack, res.Expired, res.IDChanged,
		res.EphemeralsMissing, res.Missing, res.Duplicated, res.Elections,
		float64(res.PeakRSS)/(1<<20), float64(res.RSSBefore)/(1<<20), res.CPUSeconds)
	fmt.Fprintf(r.w, "      leader %s failed (%s), new leader %s; CPU and RSS over %.1f s from the failure to the end of the checks\n",
		res.Leader, res.Mode, res.NewLeader, res.SpanSeconds)
	if res.Unexpected > 0 {
		fmt.Fprintf(r.w, "      %d unexpected watch events, the first: %s\n", res.Unexpected, res.FirstOdd)
	}
	if f := res.failed(); f != "" {
		fmt.Fprintf(r.w, "      FAILED: %s\n", f)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(r.w, "      note: %s\n", n)
	}
}

// stormSummary is the median of a target's rounds.
type stormSummary struct {
	Target     string  `json:"target"`
	LastBackMs float64 `json:"last_session_back_ms"`
	PeakRSS    float64 `json:"peak_rss_bytes"`
	CPUSeconds float64 `json:"server_cpu_s"`
	Failed     int     `json:"rounds_failed"`
}

func (r *stormReporter) summaries() []stormSummary {
	var out []stormSummary
	for _, t := range r.targets {
		var back, rss, cpu []float64
		failed := 0
		for _, res := range r.results {
			if res.Target != t.label {
				continue
			}
			back = append(back, res.LastBackMs)
			rss = append(rss, float64(res.PeakRSS))
			cpu = append(cpu, res.CPUSeconds)
			if res.failed() != "" {
				failed++
			}
		}
		out = append(out, stormSummary{t.label, medianOf(back), medianOf(rss), medianOf(cpu), failed})
	}
	return out
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// stormVerdict says whether A met the goal against B.
func stormVerdict(a, b stormSummary) (ratio float64, met bool) {
	if b.LastBackMs <= 0 {
		return 0, false
	}
	ratio = a.LastBackMs / b.LastBackMs
	return ratio, ratio <= stormGoal && a.Failed == 0
}

func (r *stormReporter) finish() error {
	sums := r.summaries()
	if r.o.json {
		doc := map[string]any{"op": r.o.op.String(), "n": r.o.n, "session_timeout_ms": r.o.sessionTimeout.Milliseconds(),
			"results": r.results, "summary": sums}
		var ts []map[string]any
		for _, t := range r.targets {
			ts = append(ts, map[string]any{"label": t.label, "name": t.name, "desc": t.desc, "addrs": t.addrs})
		}
		doc["targets"] = ts
		if len(sums) >= 2 {
			ratio, met := stormVerdict(sums[0], sums[1])
			doc["ratio_last_back"] = ratio
			doc["goal_met"] = met
		}
		enc := json.NewEncoder(r.w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	fmt.Fprintln(r.w, "median over rounds:")
	for _, s := range sums {
		fmt.Fprintf(r.w, "  %s: last session back %.0f ms, peak RSS %.0f MiB, server CPU %.1f s, rounds failed %d\n",
			s.Target, s.LastBackMs, s.PeakRSS/(1<<20), s.CPUSeconds, s.Failed)
	}
	if len(sums) >= 2 {
		ratio, met := stormVerdict(sums[0], sums[1])
		verdict := "not met"
		if met {
			verdict = "met"
		}
		fmt.Fprintf(r.w, "  A/B time to the last session: %.2f (goal <= %.1f with nothing lost and no second election in A: %s)\n", ratio, stormGoal, verdict)
	}
	return nil
}
