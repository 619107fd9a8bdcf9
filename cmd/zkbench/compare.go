package main

import (
	"context"
	"errors"
	"fmt"
	"io"
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
			endWatch := watchRound(o, t.addrs)
			res, err := runBench(ctx, o, addrs, t.pids...)
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
// each side and the median of the per-round ratios A/B.
type summaryRow struct {
	Metric string  `json:"metric"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	Ratio  float64 `json:"ratio"`
}

// summarizeAB pairs A's and B's results round by round.
func summarizeAB(results []*result) []summaryRow {
	byRound := map[int][2]*result{}
	for _, r := range results {
		pair := byRound[r.Round]
		if r.Target == "A" {
			pair[0] = r
		} else {
			pair[1] = r
		}
		byRound[r.Round] = pair
	}
	rows := make([]summaryRow, 0, len(metrics))
	for _, m := range metrics {
		var as, bs, ratios []float64
		for _, pair := range byRound {
			if pair[0] == nil || pair[1] == nil {
				continue
			}
			a, b := m.get(pair[0]), m.get(pair[1])
			as, bs = append(as, a), append(bs, b)
			if b != 0 {
				ratios = append(ratios, a/b)
			}
		}
		rows = append(rows, summaryRow{Metric: m.key, A: median(as), B: median(bs), Ratio: median(ratios)})
	}
	return rows
}
