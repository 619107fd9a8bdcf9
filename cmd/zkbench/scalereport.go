package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// scaleReporter prints the scale ops' figures: a line per run as it ends,
// then one table with a column per target (the median over the rounds)
// and the ratio A/B; or, with -json, one document at the end.
type scaleReporter struct {
	w       io.Writer
	o       *options
	targets []*target
	mems    []*procMem
	results []*scaleResult
}

func newScaleReporter(w io.Writer, o *options, targets []*target, mems []*procMem) *scaleReporter {
	return &scaleReporter{w: w, o: o, targets: targets, mems: mems}
}

func (r *scaleReporter) config() string {
	o := r.o
	switch o.op {
	case opFill:
		return fmt.Sprintf("op=fill n=%d size=%d sessions=%d inflight=%d (%d creates in flight) rounds=%d",
			o.n, o.size, o.sessions, o.inflight, o.sessions*o.inflight, o.rounds)
	default:
		return fmt.Sprintf("op=%s n=%d size=%d inflight=%d (sessions opened at once) session-timeout=%v rounds=%d",
			o.op, o.n, o.size, o.inflight, o.sessionTimeout, o.rounds)
	}
}

func (r *scaleReporter) header() {
	if r.o.json {
		return
	}
	fmt.Fprintln(r.w, r.config())
	for i, t := range r.targets {
		fmt.Fprintf(r.w, "%s: %s: %s, %s\n   %s\n", t.label, t.name, t.desc, strings.Join(t.addrs, ","), r.mems[i].describe())
	}
}

func (r *scaleReporter) add(res *scaleResult) {
	r.results = append(r.results, res)
	if r.o.json {
		return
	}
	var parts []string
	for _, f := range res.Figures[:min(3, len(res.Figures))] {
		parts = append(parts, f.Name+" "+f.format())
	}
	fmt.Fprintf(r.w, "round %d %s: %s\n", res.Round, res.Target, strings.Join(parts, ", "))
	for _, n := range res.Notes {
		fmt.Fprintf(r.w, "   note: %s\n", n)
	}
}

// scaleRow is one figure across the targets: the median of each target's
// rounds and the ratio of A's to B's.
type scaleRow struct {
	Key   string
	name  string // as printed
	unit  unit   // how it is printed
	Value []float64
	OK    []bool
	Ratio float64 // A/B, when hasR
	hasR  bool
}

// rows combines the results: one row per figure, in the order of the
// first result, a column per target.
func (r *scaleReporter) rows() []*scaleRow {
	var rows []*scaleRow
	byKey := map[string]*scaleRow{}
	for _, res := range r.results {
		for _, f := range res.Figures {
			if byKey[f.Key] == nil {
				row := &scaleRow{Key: f.Key, name: f.Name, unit: f.Unit,
					Value: make([]float64, len(r.targets)), OK: make([]bool, len(r.targets))}
				byKey[f.Key] = row
				rows = append(rows, row)
			}
		}
	}
	for _, row := range rows {
		for i, t := range r.targets {
			var vs []float64
			for _, res := range r.results {
				if res.Target != t.label {
					continue
				}
				for _, f := range res.Figures {
					if f.Key == row.Key && f.OK {
						vs = append(vs, f.Value)
					}
				}
			}
			if len(vs) > 0 {
				row.Value[i], row.OK[i] = median(vs), true
			}
		}
		if len(r.targets) == 2 && row.OK[0] && row.OK[1] && row.Value[1] != 0 {
			row.Ratio, row.hasR = row.Value[0]/row.Value[1], true
		}
	}
	return rows
}

func (r *scaleReporter) finish() error {
	rows := r.rows()
	if r.o.json {
		return r.writeJSON(rows)
	}
	title := "figures"
	if r.o.rounds > 1 {
		title = fmt.Sprintf("median of %d rounds", r.o.rounds)
	}
	fmt.Fprintf(r.w, "\n%-30s", title)
	for _, t := range r.targets {
		fmt.Fprintf(r.w, " %12s", t.label)
	}
	if len(r.targets) == 2 {
		fmt.Fprintf(r.w, " %8s", "A/B")
	}
	fmt.Fprintln(r.w)
	for _, row := range rows {
		fmt.Fprintf(r.w, "%-30s", row.name)
		for i := range r.targets {
			cell := "n/a"
			if row.OK[i] {
				cell = figure{Unit: row.unit, Value: row.Value[i]}.format()
			}
			fmt.Fprintf(r.w, " %12s", cell)
		}
		if row.hasR {
			fmt.Fprintf(r.w, " %8.2f", row.Ratio)
		}
		fmt.Fprintln(r.w)
	}
	for i, m := range r.mems {
		if len(m.procs) == 0 {
			fmt.Fprintf(r.w, "(%s: %s)\n", r.targets[i].label, m.describe())
		}
	}
	return nil
}

// format prints a figure for the text report.
func (f figure) format() string {
	switch f.Unit {
	case unitRate:
		return strconv.FormatFloat(f.Value, 'f', 0, 64) + "/s"
	case unitDuration:
		return latency(f.Value * float64(time.Millisecond)).String()
	case unitBytes:
		return formatBytes(f.Value)
	}
	return strconv.FormatFloat(f.Value, 'f', -1, 64)
}

// formatBytes prints a byte count in B, KiB or MiB.
func formatBytes(v float64) string {
	switch a := max(v, -v); {
	case a < 10*1024:
		return fmt.Sprintf("%.0f B", v)
	case a < 10*1024*1024:
		return fmt.Sprintf("%.1f KiB", v/1024)
	}
	return fmt.Sprintf("%.1f MiB", v/(1024*1024))
}

type scaleJSONTarget struct {
	jsonTarget
	Memory string `json:"memory"`
}

type scaleJSONRun struct {
	*scaleResult
	Figures map[string]float64 `json:"figures"`
}

type scaleJSONRow struct {
	Key    string              `json:"key"`
	Median map[string]*float64 `json:"median"` // by target label; null when not available
	Ratio  *float64            `json:"ratio_a_b,omitempty"`
}

type scaleJSONReport struct {
	Config  scaleJSONConfig   `json:"config"`
	Targets []scaleJSONTarget `json:"targets"`
	Runs    []scaleJSONRun    `json:"runs"`
	Summary []scaleJSONRow    `json:"summary"`
}

type scaleJSONConfig struct {
	Op                    string  `json:"op"`
	N                     int     `json:"n"`
	Size                  int     `json:"size"`
	Sessions              int     `json:"sessions,omitempty"`
	Inflight              int     `json:"inflight"`
	Rounds                int     `json:"rounds"`
	SessionTimeoutSeconds float64 `json:"session_timeout_s"`
	ForceSync             bool    `json:"forcesync"`
}

// writeJSON prints the document: durations in milliseconds, sizes in
// bytes, as the keys say; figures that are not available are left out of
// runs and null in the summary.
func (r *scaleReporter) writeJSON(rows []*scaleRow) error {
	o := r.o
	doc := scaleJSONReport{
		Config: scaleJSONConfig{Op: o.op.String(), N: o.n, Size: o.size, Inflight: o.inflight,
			Rounds: o.rounds, SessionTimeoutSeconds: o.sessionTimeout.Seconds(), ForceSync: bool(o.forceSync)},
		Runs:    []scaleJSONRun{},
		Summary: []scaleJSONRow{},
	}
	if o.op == opFill {
		doc.Config.Sessions = o.sessions
	}
	for i, t := range r.targets {
		doc.Targets = append(doc.Targets, scaleJSONTarget{jsonTarget{t.label, t.name, t.desc, t.addrs}, r.mems[i].describe()})
	}
	for _, res := range r.results {
		run := scaleJSONRun{scaleResult: res, Figures: map[string]float64{}}
		for _, f := range res.Figures {
			if f.OK {
				run.Figures[f.Key] = f.Value
			}
		}
		doc.Runs = append(doc.Runs, run)
	}
	for _, row := range rows {
		jr := scaleJSONRow{Key: row.Key, Median: map[string]*float64{}}
		for i, t := range r.targets {
			if row.OK[i] {
				jr.Median[t.label] = &row.Value[i]
			} else {
				jr.Median[t.label] = nil
			}
		}
		if row.hasR {
			jr.Ratio = &row.Ratio
		}
		doc.Summary = append(doc.Summary, jr)
	}
	enc := json.NewEncoder(r.w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
