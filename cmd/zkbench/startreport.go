package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// startReporter prints -op start's results: a line per round as it ends,
// then min, median and max per target and the ratio of the medians A/B;
// or, with -json, one document at the end.
type startReporter struct {
	w         io.Writer
	o         *options
	launchers []*launcher
	runs      []*startRun
}

func (r *startReporter) header() {
	if r.o.json {
		return
	}
	fmt.Fprintf(r.w, "op=start rounds=%d: process launch to the first successful create (ephemeral znode, new session)\n", r.o.rounds)
	for _, l := range r.launchers {
		fmt.Fprintf(r.w, "%s: %s: %s\n", l.label, l.name, l.desc)
	}
}

func (r *startReporter) add(run *startRun) {
	r.runs = append(r.runs, run)
	if r.o.json {
		return
	}
	fmt.Fprintf(r.w, "round %d %s: %s (%d probes)", run.Round, run.Target, msString(run.StartMs), run.Probes)
	if run.Launches > 1 {
		fmt.Fprintf(r.w, ", launched %d times: the earlier processes exited before serving", run.Launches)
	}
	fmt.Fprintln(r.w)
}

// startStats are one target's figures over its rounds, in milliseconds.
type startStats struct {
	Min    float64 `json:"min_ms"`
	Median float64 `json:"median_ms"`
	Max    float64 `json:"max_ms"`
	Rounds int     `json:"rounds"`
}

// stats returns the figures of the target labelled label.
func (r *startReporter) stats(label string) startStats {
	var ms []float64
	for _, run := range r.runs {
		if run.Target == label {
			ms = append(ms, run.StartMs)
		}
	}
	if len(ms) == 0 {
		return startStats{}
	}
	return startStats{Min: slices.Min(ms), Median: median(ms), Max: slices.Max(ms), Rounds: len(ms)}
}

// ratio returns the ratio of A's median to B's, when there are two targets.
func (r *startReporter) ratio(stats []startStats) (float64, bool) {
	if len(stats) != 2 || stats[1].Median == 0 {
		return 0, false
	}
	return stats[0].Median / stats[1].Median, true
}

func (r *startReporter) finish() error {
	var stats []startStats
	for _, l := range r.launchers {
		stats = append(stats, r.stats(l.label))
	}
	ratio, hasRatio := r.ratio(stats)
	if r.o.json {
		return r.writeJSON(stats, ratio, hasRatio)
	}
	fmt.Fprintf(r.w, "\n%-30s", fmt.Sprintf("start to first write, %d rounds", r.o.rounds))
	for _, l := range r.launchers {
		fmt.Fprintf(r.w, " %12s", l.label)
	}
	if hasRatio {
		fmt.Fprintf(r.w, " %8s", "A/B")
	}
	fmt.Fprintln(r.w)
	rows := []struct {
		name string
		get  func(startStats) float64
	}{
		{"min", func(s startStats) float64 { return s.Min }},
		{"median", func(s startStats) float64 { return s.Median }},
		{"max", func(s startStats) float64 { return s.Max }},
	}
	for _, row := range rows {
		fmt.Fprintf(r.w, "%-30s", row.name)
		for _, s := range stats {
			fmt.Fprintf(r.w, " %12s", msString(row.get(s)))
		}
		if hasRatio && row.name == "median" {
			fmt.Fprintf(r.w, " %8.3f", ratio)
		}
		fmt.Fprintln(r.w)
	}
	if hasRatio {
		fmt.Fprintln(r.w, "(A/B is the ratio of the medians; below 1 means A starts faster)")
	}
	return nil
}

// msString prints milliseconds as the other reports print durations.
func msString(ms float64) string { return figure{Unit: unitDuration, Value: ms}.format() }

type startJSONTarget struct {
	Label string     `json:"label"`
	Name  string     `json:"name"`
	Desc  string     `json:"desc"`
	Stats startStats `json:"summary"`
}

type startJSONReport struct {
	Config struct {
		Op        string `json:"op"`
		Rounds    int    `json:"rounds"`
		ForceSync bool   `json:"forcesync"`
	} `json:"config"`
	Targets []startJSONTarget `json:"targets"`
	Runs    []*startRun       `json:"runs"`
	// RatioMedians is A's median over B's, with two targets.
	RatioMedians *float64 `json:"ratio_median_a_b,omitempty"`
}

// writeJSON prints the document; times are in milliseconds.
func (r *startReporter) writeJSON(stats []startStats, ratio float64, hasRatio bool) error {
	var doc startJSONReport
	doc.Config.Op, doc.Config.Rounds, doc.Config.ForceSync = r.o.op.String(), r.o.rounds, bool(r.o.forceSync)
	for i, l := range r.launchers {
		doc.Targets = append(doc.Targets, startJSONTarget{l.label, l.name, l.desc, stats[i]})
	}
	doc.Runs = append([]*startRun{}, r.runs...)
	if hasRatio {
		doc.RatioMedians = &ratio
	}
	enc := json.NewEncoder(r.w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
