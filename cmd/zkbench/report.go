package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// latency is a duration printed in the text report as µs or ms, and in
// JSON as microseconds.
type latency time.Duration

func (l latency) micros() float64 { return float64(l) / float64(time.Microsecond) }

func (l latency) String() string {
	d := time.Duration(l)
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", l.micros())
	case d < time.Second:
		return fmt.Sprintf("%.2fms", l.micros()/1e3)
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func (l latency) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, l.micros(), 'f', 1, 64), nil
}

func (l *latency) UnmarshalJSON(b []byte) error {
	us, err := strconv.ParseFloat(string(b), 64)
	*l = latency(us * float64(time.Microsecond))
	return err
}

// reporter prints each round as it ends (text), or everything at the end
// (JSON).
type reporter struct {
	w       io.Writer
	o       *options
	targets []*target
	results []*result
}

func newReporter(w io.Writer, o *options, targets []*target) *reporter {
	return &reporter{w: w, o: o, targets: targets}
}

func (r *reporter) opDesc() string {
	if r.o.op == opMix {
		return fmt.Sprintf("mix (%d%% get, %d%% set)", r.o.mix, 100-r.o.mix)
	}
	return r.o.op.String()
}

// header prints the workload and the targets.
func (r *reporter) header() {
	if r.o.json {
		return
	}
	o := r.o
	fmt.Fprintf(r.w, "op=%s sessions=%d inflight=%d size=%d keys=%d warmup=%v duration=%v rounds=%d role=%s\n",
		r.opDesc(), o.sessions, o.inflight, o.size, o.keys, o.warmup, o.duration, o.rounds, o.role)
	for _, t := range r.targets {
		fmt.Fprintf(r.w, "%s: %s: %s, %s\n", t.label, t.name, t.desc, strings.Join(t.addrs, ","))
	}
	fmt.Fprintf(r.w, "%-5s %-6s %10s %9s %9s %9s %9s %9s %7s %7s\n",
		"round", "target", "ops/s", "mean", "p50", "p99", "p99.9", "max", "errors", "steal")
}

// add records a result and prints it.
func (r *reporter) add(res *result) {
	r.results = append(r.results, res)
	if r.o.json {
		return
	}
	fmt.Fprintf(r.w, "%-5d %-6s %10.0f %9v %9v %9v %9v %9v %7d %6.1f%%\n",
		res.Round, res.Target, res.OpsPerSec, res.Mean, res.P50, res.P99, res.P999, res.Max, res.Errors, res.HostSteal)
	if res.FirstError != "" {
		fmt.Fprintf(r.w, "      first error: %s\n", res.FirstError)
	}
	reportLeader(r.w, res.Leader)
	r.addRoles(res)
	r.addCPURoles(res)
}

// finish prints the A/B summary, or the JSON document.
func (r *reporter) finish() error {
	var summary []summaryRow
	if len(r.targets) >= 2 {
		summary = summarizeAB(r.results)
	}
	if r.o.json {
		return r.writeJSON(summary)
	}
	if summary == nil {
		return nil
	}
	labels := r.labels()
	fmt.Fprintf(r.w, "\n%-19s  %s\n", fmt.Sprintf("median of %d rounds", r.o.rounds), summaryHeader(labels))
	for i, row := range summary {
		m := metrics[i]
		fmt.Fprintf(r.w, "%-19s  %s\n", m.name, summaryCells(row, func(v float64) string { return fmtMetric(m, v) }, m.key != "host_steal_pct"))
	}
	if len(labels) == 2 {
		fmt.Fprintln(r.w, "(A/B is the median of the per-round ratios; above 1 means more ops/s or slower latency for A)")
	} else {
		fmt.Fprintf(r.w, "(%s are the medians of the per-round ratios; above 1 means more ops/s or slower latency for A)\n", strings.Join(ratioNames(labels), ", "))
	}
	fmt.Fprintln(r.w, "(steal: the machine's CPU time taken by other guests of its hypervisor during the window; rounds with much of it are unreliable)")
	r.finishRoles()
	r.finishCPURoles()
	return nil
}

// labels returns the targets' labels: A, B, ...
func (r *reporter) labels() []string {
	labels := make([]string, len(r.targets))
	for i, t := range r.targets {
		labels[i] = t.label
	}
	return labels
}

// ratioNames returns A/B, A/C, ... for labels A, B, C, ...
func ratioNames(labels []string) []string {
	var names []string
	for _, l := range labels[1:] {
		names = append(names, labels[0]+"/"+l)
	}
	return names
}

// summaryHeader is the column header of a summary: a median column per
// target, then a ratio column per target after A.
func summaryHeader(labels []string) string {
	var b strings.Builder
	for _, l := range labels {
		fmt.Fprintf(&b, " %12s", l)
	}
	for _, n := range ratioNames(labels) {
		fmt.Fprintf(&b, " %8s", n)
	}
	return b.String()[1:]
}

// summaryCells formats a summary row's medians, then its ratios unless
// withRatios is false.
func summaryCells(row summaryRow, format func(float64) string, withRatios bool) string {
	var b strings.Builder
	for _, v := range row.values() {
		fmt.Fprintf(&b, " %12s", format(v))
	}
	if withRatios {
		for _, x := range row.ratios() {
			fmt.Fprintf(&b, " %8.2f", x)
		}
	}
	return b.String()[1:]
}

func fmtMetric(m metric, v float64) string {
	switch m.key {
	case "ops_per_sec":
		return strconv.FormatFloat(v, 'f', 0, 64)
	case "host_steal_pct":
		return strconv.FormatFloat(v, 'f', 1, 64) + "%"
	}
	return latency(v * float64(time.Microsecond)).String()
}

type jsonTarget struct {
	Label string   `json:"label"`
	Name  string   `json:"name"`
	Desc  string   `json:"desc"`
	Addrs []string `json:"addrs"`
}

type jsonConfig struct {
	Op              string  `json:"op"`
	MixGetPercent   int     `json:"mix_get_percent,omitempty"`
	Sessions        int     `json:"sessions"`
	Inflight        int     `json:"inflight"`
	Size            int     `json:"size"`
	Keys            int     `json:"keys"`
	WarmupSeconds   float64 `json:"warmup_s"`
	DurationSeconds float64 `json:"duration_s"`
	Rounds          int     `json:"rounds"`
	ForceSync       bool    `json:"forcesync"`
	Role            string  `json:"role"`
}

type jsonReport struct {
	Config      jsonConfig       `json:"config"`
	Targets     []jsonTarget     `json:"targets"`
	Rounds      []*result        `json:"rounds"`
	Summary     []summaryRow     `json:"summary,omitempty"`
	RoleSummary []roleSummaryRow `json:"role_summary,omitempty"`
	// CPURoleSummary is the server CPU per operation by server role,
	// user and system time (metrics user_us_per_op, sys_us_per_op).
	CPURoleSummary []roleSummaryRow `json:"cpu_role_summary,omitempty"`
}

func (r *reporter) writeJSON(summary []summaryRow) error {
	o := r.o
	doc := jsonReport{
		Config: jsonConfig{Op: o.op.String(), Sessions: o.sessions, Inflight: o.inflight,
			Size: o.size, Keys: o.keys, WarmupSeconds: o.warmup.Seconds(),
			DurationSeconds: o.duration.Seconds(), Rounds: o.rounds, ForceSync: bool(o.forceSync),
			Role: o.role},
		Rounds:  r.results,
		Summary: summary,
	}
	if summary != nil {
		doc.RoleSummary = summarizeRolesAB(r.results)
		doc.CPURoleSummary = summarizeCPURoles(r.results)
	}
	if o.op == opMix {
		doc.Config.MixGetPercent = o.mix
	}
	for _, t := range r.targets {
		doc.Targets = append(doc.Targets, jsonTarget{t.label, t.name, t.desc, t.addrs})
	}
	enc := json.NewEncoder(r.w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
