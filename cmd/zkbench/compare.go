package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
)

// execute starts the targets, runs the rounds (alternating A, B, A, B, ...
// with -compare) and reports them.
func execute(ctx context.Context, o *options, out io.Writer) error {
	for _, spec := range o.specs {
		if err := checkAvailable(spec, o); err != nil {
			return err
		}
	}
	if o.op == opStart {
		return runStart(ctx, o, out) // launches its own servers, once per round
	}
	if o.op == opStorm || o.op == opStormStop {
		return runStorm(ctx, o, out) // raises the open-files limit first (storm.go)
	}
	if o.op == opBigtree {
		return runBigtree(ctx, o, out) // starts and restarts its own servers (bigtree.go)
	}
	if o.op == opConns {
		return runConns(ctx, o, out) // raises the open-files limit first (conns.go)
	}
	targets, err := startTargets(ctx, o)
	defer stopTargets(targets)
	if err != nil {
		return err
	}
	if o.op.scale() {
		return runScale(ctx, o, targets, out)
	}
	if o.op == opLock {
		return runLock(ctx, o, targets, out)
	}
	plan := o.plan
	if len(plan) == 0 {
		plan = []workloadSpec{{o.opName, o.op, o.sessions, o.role}}
	}
	for i, w := range plan {
		if i > 0 {
			fmt.Fprintln(out)
		}
		wo := *o
		wo.use(w)
		if err := runWorkload(ctx, &wo, targets, out); err != nil {
			if len(plan) > 1 {
				err = fmt.Errorf("%s: %w", w, err)
			}
			return err
		}
	}
	return nil
}

// runWorkload runs o's rounds of one workload on the targets and reports
// them.
func runWorkload(ctx context.Context, o *options, targets []*target, out io.Writer) error {
	rep := newReporter(out, o, targets)
	rep.header()
	for round := 1; round <= o.rounds; round++ {
		for _, t := range targets {
			addrs, err := roleAddrs(t.addrs, o.role)
			if err != nil {
				return fmt.Errorf("%s (%s), round %d: %w", t.label, t.name, round, err)
			}
			if t.check != nil {
				if err := t.check(); err != nil {
					return fmt.Errorf("%s (%s), round %d: %w", t.label, t.name, round, err)
				}
			}
			procs := serverProcs(t.addrs, t.pids, srvrMode)
			endWatch := watchRound(o, t.addrs)
			res, err := runBench(ctx, o, addrs, procs...)
			endWatch(res)
			if errors.Is(err, context.Canceled) {
				err = errors.New("interrupted")
			}
			if err != nil {
				return fmt.Errorf("%s (%s), round %d: %w", t.label, t.name, round, err)
			}
			res.Round, res.Target = round, t.label
			rep.add(res)
		}
	}
	return rep.finish()
}

// startTargets starts every target in turn; on error it returns those it
// started, for stopTargets.
func startTargets(ctx context.Context, o *options) ([]*target, error) {
	var targets []*target
	for i, spec := range o.specs {
		t, err := startTarget(ctx, spec, o)
		if err != nil {
			return targets, err
		}
		t.label = string(rune('A' + i))
		targets = append(targets, t)
	}
	return targets, nil
}

func stopTargets(targets []*target) {
	for _, t := range targets {
		t.stop()
	}
}

// metric is one figure of a result.
type metric struct {
	name string // as printed
	key  string // in JSON
	get  func(*result) float64
}

var metrics = []metric{
	{"ops/s", "ops_per_sec", func(r *result) float64 { return r.OpsPerSec }},
	{"mean", "mean_us", func(r *result) float64 { return r.Mean.micros() }},
	{"p50", "p50_us", func(r *result) float64 { return r.P50.micros() }},
	{"p99", "p99_us", func(r *result) float64 { return r.P99.micros() }},
	{"p99.9", "p999_us", func(r *result) float64 { return r.P999.micros() }},
	{"max", "max_us", func(r *result) float64 { return r.Max.micros() }},
	{"server CPU/op", "server_cpu_us_per_op", func(r *result) float64 { return r.ServerCPU }},
	{"host steal %", "host_steal_pct", func(r *result) float64 { return r.HostSteal }},
}

// summaryRow is one metric across the rounds of A and B: the median of
// each side and the median of the per-round ratios A/B; with more targets
// (-compare A;B;C) the others' in More.
type summaryRow struct {
	Metric string  `json:"metric"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	Ratio  float64 `json:"ratio"`
	// More are the third and later targets: each one's median and the
	// median of the per-round ratios A/it.
	More []sideSummary `json:"more,omitempty"`
}

// sideSummary is one more target's figure in a summaryRow.
type sideSummary struct {
	Target string  `json:"target"`
	Median float64 `json:"median"`
	Ratio  float64 `json:"ratio"` // A/Target
}

// summary returns, as a summaryRow of metric, the median of the values of
// each target of labels (A, B, ...) and of the per-round ratios A/target;
// a target with no values gets 0 for both. ok is false unless A and
// another target have values.
func (v roundValues) summary(metric string, labels []string) (row summaryRow, ok bool) {
	if len(labels) < 2 || labels[0] != "A" {
		return summaryRow{}, false
	}
	medians := make([]float64, len(labels))
	ratios := make([]float64, len(labels))
	has := make([]bool, len(labels))
	for k, label := range labels {
		var vals, rs []float64
		for _, byLabel := range v {
			x, ok := byLabel[label]
			if !ok {
				continue
			}
			vals = append(vals, x)
			if a, ok := byLabel["A"]; ok && k > 0 && x != 0 {
				rs = append(rs, a/x)
			}
		}
		medians[k], ratios[k], has[k] = median(vals), median(rs), len(vals) > 0
	}
	if !has[0] || !slices.Contains(has[1:], true) {
		return summaryRow{}, false
	}
	row = summaryRow{Metric: metric, A: medians[0], B: medians[1], Ratio: ratios[1]}
	for k := 2; k < len(labels); k++ {
		row.More = append(row.More, sideSummary{Target: labels[k], Median: medians[k], Ratio: ratios[k]})
	}
	return row, true
}

// roundValues holds one figure of every round: round -> target label ->
// value.
type roundValues map[int]map[string]float64

func (v roundValues) add(round int, label string, x float64) {
	if v[round] == nil {
		v[round] = map[string]float64{}
	}
	v[round][label] = x
}

// resultLabels returns the labels of the targets of results in order (A,
// B, C, ...).
func resultLabels(results []*result) []string {
	seen := map[string]bool{}
	for _, r := range results {
		seen[r.Target] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// values returns a row's medians in target order: A, B, then More's.
func (r summaryRow) values() []float64 {
	vs := []float64{r.A, r.B}
	for _, m := range r.More {
		vs = append(vs, m.Median)
	}
	return vs
}

// ratios returns a row's ratios A/B, A/C, ...
func (r summaryRow) ratios() []float64 {
	rs := []float64{r.Ratio}
	for _, m := range r.More {
		rs = append(rs, m.Ratio)
	}
	return rs
}

// summarizeAB summarizes every metric over the rounds of the targets.
func summarizeAB(results []*result) []summaryRow {
	labels := resultLabels(results)
	rows := make([]summaryRow, 0, len(metrics))
	for _, m := range metrics {
		v := roundValues{}
		for _, r := range results {
			v.add(r.Round, r.Target, m.get(r))
		}
		row, ok := v.summary(m.key, labels)
		if !ok {
			row = summaryRow{Metric: m.key}
		}
		rows = append(rows, row)
	}
	return rows
}
