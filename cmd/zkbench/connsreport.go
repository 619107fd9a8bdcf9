package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// connsResult is one -op conns run on one target.
type connsResult struct {
	Round        int     `json:"round"`
	Target       string  `json:"target"` // A, B...
	Name         string  `json:"name"`
	Desc         string  `json:"desc"`
	Wanted       int     `json:"wanted"`
	Served       int     `json:"served"` // connect response and watch reply
	Sources      int     `json:"source_addresses"`
	OpenSeconds  float64 `json:"open_s"`
	OpenFailures int     `json:"open_failures"`
	FirstOpenErr string  `json:"first_open_error,omitempty"`
	Lost         int     `json:"lost"` // held connections that failed later
	FirstLost    string  `json:"first_lost,omitempty"`
	ServerFDs    int     `json:"server_fds"`
	Unexpected   int     `json:"unexpected_events"`
	ArmErrors    int     `json:"watch_errors"`

	MemDesc          string  `json:"memory"`
	RSSOK            bool    `json:"-"`
	HeapOK           bool    `json:"-"`
	RSSBefore        int64   `json:"rss_before_bytes"`
	RSSAfter         int64   `json:"rss_after_bytes"`
	HeapBefore       int64   `json:"heap_before_bytes"`
	HeapAfter        int64   `json:"heap_after_bytes"`
	RSSPerConn       float64 `json:"rss_per_conn_bytes"`
	HeapPerConn      float64 `json:"heap_per_conn_bytes"`
	ClientRSSPerConn float64 `json:"zkbench_rss_per_conn_bytes"`

	Fires      []connsFireResult `json:"fires"`
	EventP50Ms float64           `json:"event_p50_ms"` // over every fire's events
	EventP99Ms float64           `json:"event_p99_ms"`
	EventMaxMs float64           `json:"event_max_ms"`

	Probe struct {
		Base probeSummary `json:"without"`
		Idle probeSummary `json:"idle"`
		Fire probeSummary `json:"fire"`
	} `json:"probe"`
	Notes []string `json:"notes,omitempty"`
}

// probeSummary is one phase of the probe, in milliseconds.
type probeSummary struct {
	Pairs    int     `json:"pairs"` // get+set pairs timed
	GetP50   float64 `json:"get_p50_ms"`
	GetP99   float64 `json:"get_p99_ms"`
	SetP50   float64 `json:"set_p50_ms"`
	SetP99   float64 `json:"set_p99_ms"`
	Errors   int     `json:"errors"`
	FirstErr string  `json:"first_error,omitempty"`
}

func summarizeProbe(st *probeStats) probeSummary {
	p := probeSummary{Pairs: int(st.set.count()), Errors: st.errors}
	if st.get.count() > 0 {
		p.GetP50, p.GetP99 = msOf(st.get.percentile(50)), msOf(st.get.percentile(99))
	}
	if st.set.count() > 0 {
		p.SetP50, p.SetP99 = msOf(st.set.percentile(50)), msOf(st.set.percentile(99))
	}
	if st.firstErr != nil {
		p.FirstErr = st.firstErr.Error()
	}
	return p
}

// memory fills in the server's memory per connection served, and
// zkbench's own.
func (r *connsResult) memory(m *procMem, before, after memSample, client int64) {
	r.MemDesc = m.describe()
	n := float64(r.Served)
	if before.rssOK && after.rssOK {
		r.RSSOK, r.RSSBefore, r.RSSAfter = true, before.rss, after.rss
		r.RSSPerConn = float64(after.rss-before.rss) / n
	}
	if before.heapOK && after.heapOK {
		r.HeapOK, r.HeapBefore, r.HeapAfter = true, before.heap, after.heap
		r.HeapPerConn = float64(after.heap-before.heap) / n
	}
	for _, err := range []error{before.err, after.err} {
		if err != nil {
			r.Notes = append(r.Notes, "memory: "+err.Error())
		}
	}
	r.ClientRSSPerConn = float64(client) / n
}

// lastMedian is the median over the fires of the time to the last event.
func (r *connsResult) lastMedian() float64 {
	return r.fireMedian(func(f connsFireResult) float64 { return f.LastMs })
}

// fireMedian is the median over the fires of one figure.
func (r *connsResult) fireMedian(get func(connsFireResult) float64) float64 {
	var xs []float64
	for _, f := range r.Fires {
		xs = append(xs, get(f))
	}
	return median(xs)
}

func (r *connsResult) missing() int {
	m := 0
	for _, f := range r.Fires {
		m += f.Missing
	}
	return m
}

// connsReporter prints the runs as they end and the comparison at the end.
type connsReporter struct {
	out     io.Writer
	o       *options
	notes   []string
	results []*connsResult
}

func newConnsReporter(out io.Writer, o *options) *connsReporter {
	return &connsReporter{out: out, o: o}
}

func (p *connsReporter) note(s string) {
	p.notes = append(p.notes, s)
	if !p.o.json {
		fmt.Fprintln(p.out, s)
	}
}

func (p *connsReporter) add(r *connsResult) {
	p.results = append(p.results, r)
	if !p.o.json {
		printConns(p.out, r)
	}
}

func (p *connsReporter) finish() error {
	if p.o.json {
		enc := json.NewEncoder(p.out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Op      string         `json:"op"`
			N       int            `json:"n"`
			Notes   []string       `json:"notes"`
			Results []*connsResult `json:"results"`
		}{"conns", p.o.n, p.notes, p.results})
	}
	printConnsTable(p.out, p.o.specs, p.results)
	printConnsGoals(p.out, p.o.specs, p.results)
	return nil
}

// printConns prints one run.
func printConns(w io.Writer, r *connsResult) {
	fmt.Fprintf(w, "\nround %d, %s %s: %s\n", r.Round, r.Target, r.Name, r.Desc)
	fmt.Fprintf(w, "  connections: %d of %d served (session and watch) in %.1f s over %d source address(es); %d failed to open; %d lost later; server open files %d\n",
		r.Served, r.Wanted, r.OpenSeconds, r.Sources, r.OpenFailures, r.Lost, r.ServerFDs)
	if r.FirstOpenErr != "" {
		fmt.Fprintf(w, "  first failure to open: %s\n", r.FirstOpenErr)
	}
	if r.FirstLost != "" {
		fmt.Fprintf(w, "  first connection lost: %s\n", r.FirstLost)
	}
	fmt.Fprintf(w, "  %s\n", r.MemDesc)
	if r.RSSOK {
		fmt.Fprintf(w, "  server RSS %s -> %s: %s per connection\n", formatBytes(float64(r.RSSBefore)), formatBytes(float64(r.RSSAfter)), formatBytes(r.RSSPerConn))
	}
	if r.HeapOK {
		fmt.Fprintf(w, "  server live heap %s -> %s: %s per connection\n", formatBytes(float64(r.HeapBefore)), formatBytes(float64(r.HeapAfter)), formatBytes(r.HeapPerConn))
	}
	fmt.Fprintf(w, "  zkbench RSS per connection: %s\n", formatBytes(r.ClientRSSPerConn))
	for i, f := range r.Fires {
		fmt.Fprintf(w, "  fire %d: setData %.2f ms; %d events, %d missing; p50 %.1f ms, p99 %.1f ms, last %.1f ms; CPU per event: server %.1f µs, zkbench %.1f µs\n",
			i+1, f.SetMs, f.Got, f.Missing, f.P50Ms, f.P99Ms, f.LastMs, f.ServerCPUUs, f.ClientCPUUs)
	}
	fmt.Fprintf(w, "  all fires: events p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d unexpected events, %d watch errors\n",
		r.EventP50Ms, r.EventP99Ms, r.EventMaxMs, r.Unexpected, r.ArmErrors)
	for _, ph := range []struct {
		name string
		p    probeSummary
	}{{"without the connections", r.Probe.Base}, {"connections idle", r.Probe.Idle}, {"while the watch fires", r.Probe.Fire}} {
		fmt.Fprintf(w, "  probe %-24s %6d pairs: get p50 %.3f p99 %.3f ms, set p50 %.3f p99 %.3f ms, %d errors %s\n",
			ph.name+":", ph.p.Pairs, ph.p.GetP50, ph.p.GetP99, ph.p.SetP50, ph.p.SetP99, ph.p.Errors, ph.p.FirstErr)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// connsRow is one line of the comparison table.
type connsRow struct {
	name string
	get  func(*connsResult) float64
	fmt  string
}

var connsRows = []connsRow{
	{"connections served", func(r *connsResult) float64 { return float64(r.Served) }, "%.0f"},
	{"time to open and watch all (s)", func(r *connsResult) float64 { return r.OpenSeconds }, "%.1f"},
	{"server open files", func(r *connsResult) float64 { return float64(r.ServerFDs) }, "%.0f"},
	{"server RSS per connection (KiB)", func(r *connsResult) float64 { return r.RSSPerConn / 1024 }, "%.2f"},
	{"server live heap per connection (KiB)", func(r *connsResult) float64 { return r.HeapPerConn / 1024 }, "%.2f"},
	{"watch fan-out: time to last event, median of fires (ms)", func(r *connsResult) float64 { return r.lastMedian() }, "%.1f"},
	{"watch fan-out: server CPU per event, median of fires (µs)", func(r *connsResult) float64 {
		return r.fireMedian(func(f connsFireResult) float64 { return f.ServerCPUUs })
	}, "%.1f"},
	{"watch fan-out: zkbench CPU per event, median of fires (µs)", func(r *connsResult) float64 {
		return r.fireMedian(func(f connsFireResult) float64 { return f.ClientCPUUs })
	}, "%.1f"},
	{"watch fan-out: setData latency, median of fires (ms)", func(r *connsResult) float64 { return r.fireMedian(func(f connsFireResult) float64 { return f.SetMs }) }, "%.1f"},
	{"watch fan-out: event p50, all fires (ms)", func(r *connsResult) float64 { return r.EventP50Ms }, "%.1f"},
	{"watch fan-out: event p99, all fires (ms)", func(r *connsResult) float64 { return r.EventP99Ms }, "%.1f"},
	{"watch fan-out: max (ms)", func(r *connsResult) float64 { return r.EventMaxMs }, "%.1f"},
	{"events missing", func(r *connsResult) float64 { return float64(r.missing()) }, "%.0f"},
	{"probe get p99 without connections (ms)", func(r *connsResult) float64 { return r.Probe.Base.GetP99 }, "%.3f"},
	{"probe get p99, connections idle (ms)", func(r *connsResult) float64 { return r.Probe.Idle.GetP99 }, "%.3f"},
	{"probe get p99 while the watch fires (ms)", func(r *connsResult) float64 { return r.Probe.Fire.GetP99 }, "%.3f"},
	{"probe set p99 without connections (ms)", func(r *connsResult) float64 { return r.Probe.Base.SetP99 }, "%.3f"},
	{"probe set p99, connections idle (ms)", func(r *connsResult) float64 { return r.Probe.Idle.SetP99 }, "%.3f"},
	{"probe set p99 while the watch fires (ms)", func(r *connsResult) float64 { return r.Probe.Fire.SetP99 }, "%.3f"},
	{"probe get p99 idle / without", func(r *connsResult) float64 { return ratioOr0(r.Probe.Idle.GetP99, r.Probe.Base.GetP99) }, "%.2f"},
	{"probe get p99 fire / without", func(r *connsResult) float64 { return ratioOr0(r.Probe.Fire.GetP99, r.Probe.Base.GetP99) }, "%.2f"},
	{"probe set p99 idle / without", func(r *connsResult) float64 { return ratioOr0(r.Probe.Idle.SetP99, r.Probe.Base.SetP99) }, "%.2f"},
	{"probe set p99 fire / without", func(r *connsResult) float64 { return ratioOr0(r.Probe.Fire.SetP99, r.Probe.Base.SetP99) }, "%.2f"},
}

func ratioOr0(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// printConnsTable prints a markdown table: each target's median over the
// rounds, and A's ratio to each other target.
func printConnsTable(w io.Writer, specs []string, results []*connsResult) {
	fmt.Fprintln(w)
	head := "| -op conns, -n " + fmt.Sprint(maxWanted(results)) + " |"
	sep := "|---|"
	for _, s := range specs {
		head += " " + s + " |"
		sep += "---:|"
	}
	for _, s := range specs[1:] {
		head += " " + specs[0] + " / " + s + " |"
		sep += "---:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, sep)
	for _, row := range connsRows {
		vals := make([]float64, len(specs))
		var cells []string
		for i := range specs {
			var xs []float64
			for _, r := range results {
				if r.Target == string(rune('A'+i)) {
					xs = append(xs, row.get(r))
				}
			}
			vals[i] = median(xs)
			cells = append(cells, fmt.Sprintf(row.fmt, vals[i]))
		}
		for i := 1; i < len(specs); i++ {
			cells = append(cells, fmt.Sprintf("%.2f", ratioOr0(vals[0], vals[i])))
		}
		fmt.Fprintf(w, "| %s | %s |\n", row.name, strings.Join(cells, " | "))
	}
}

func maxWanted(results []*connsResult) int {
	n := 0
	for _, r := range results {
		n = max(n, r.Wanted)
	}
	return n
}

// printConnsGoals checks issue 30's goals on A (zkraft) against B
// (ZooKeeper): every connection served on both, A's server RSS per
// connection and time to the last event at most half B's, and A's probe
// p99 idle and during the fan-out at most twice its p99 without the
// connections. Medians over the rounds, as in the table.
func printConnsGoals(w io.Writer, specs []string, results []*connsResult) {
	if len(specs) < 2 {
		return
	}
	med := func(label string, get func(*connsResult) float64) float64 {
		var xs []float64
		for _, r := range results {
			if r.Target == label {
				xs = append(xs, get(r))
			}
		}
		return median(xs)
	}
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	served := func(r *connsResult) float64 { return float64(r.Wanted - r.Served + r.missing() + r.Lost) }
	fmt.Fprintf(w, "\ngoals (%s against %s):\n", specs[0], specs[1])
	fmt.Fprintf(w, "  all connections served and notified: %s on %s, %s on %s\n",
		verdict(med("A", served) == 0), specs[0], verdict(med("B", served) == 0), specs[1])
	rss := ratioOr0(med("A", func(r *connsResult) float64 { return r.RSSPerConn }), med("B", func(r *connsResult) float64 { return r.RSSPerConn }))
	fmt.Fprintf(w, "  server RSS per connection <= 0.5x: %.2fx, %s\n", rss, verdict(rss > 0 && rss <= 0.5))
	last := ratioOr0(med("A", (*connsResult).lastMedian), med("B", (*connsResult).lastMedian))
	fmt.Fprintf(w, "  time to the last event <= 0.5x: %.2fx, %s\n", last, verdict(last > 0 && last <= 0.5))
	for _, row := range connsRows[len(connsRows)-4:] {
		v := med("A", row.get)
		fmt.Fprintf(w, "  %s's %s <= 2: %.2f, %s\n", specs[0], row.name, v, verdict(v > 0 && v <= 2))
	}
}
