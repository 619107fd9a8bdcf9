package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// The scale ops measure one thing each, once per target and round, rather
// than a throughput over a time window:
//
//	fill      create -n znodes of -size bytes under one parent, -sessions
//	          sessions with -inflight creates in flight on each; report the
//	          time, the server's RSS and live heap before and after, and
//	          the heap per znode
//	sessions  open -n sessions, -inflight at a time; report the time until
//	          all are established and the server's memory with them open;
//	          then close them
//	watchers  -n sessions each set a data watch (getData) on one znode, then
//	          another session sets it; report when each watcher got its
//	          event (p50, p99, max after the set was sent) and the server's
//	          memory with the watches in place
//
// Memory is read from the server processes (memory.go); for an in-process
// target only the times are reported.

func (k opKind) scale() bool {
	return k == opFill || k == opSessions || k == opWatchers || k == opWatches || k == opStorm || k == opStormStop || k == opConns || k == opBigtree
}

// Defaults of the scale ops, applied when the flag is not given.
const (
	defaultFillN        = 200000
	defaultSessionsN    = 10000
	defaultWatchersN    = 10000
	defaultFillInflight = 8  // per session: 64 creates in flight with -sessions 8
	defaultOpenInflight = 16 // sessions being opened at once
	watchersWait        = time.Minute
)

// scaleDefaults fills in -n and -inflight for the scale ops and runs them
// once per target unless -rounds says otherwise; other ops reject -n.
func (o *options) scaleDefaults(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !o.op.scale() {
		if set["n"] {
			return fmt.Errorf("-n applies to -op fill, sessions, watchers, watches, storm, storm-stop, conns and bigtree, not %s", o.op)
		}
		return nil
	}
	if o.n < 0 {
		return fmt.Errorf("-n %d must be positive", o.n)
	}
	if o.n == 0 {
		o.n = map[opKind]int{opFill: defaultFillN, opSessions: defaultSessionsN, opWatchers: defaultWatchersN, opWatches: defaultWatchesN}[o.op]
	}
	if o.op == opWatches {
		if err := o.watches.validate(); err != nil {
			return err
		}
	}
	if !set["inflight"] {
		o.inflight = defaultOpenInflight
		if o.op == opFill {
			o.inflight = defaultFillInflight
		}
	}
	if o.rounds == 0 {
		o.rounds = 1
	}
	return nil
}

// unit says how a figure is printed.
type unit int

const (
	unitCount    unit = iota
	unitRate          // per second
	unitDuration      // value in milliseconds
	unitBytes
)

// figure is one measured value of a scale run.
type figure struct {
	Key   string  `json:"key"`
	Name  string  `json:"-"`
	Unit  unit    `json:"-"`
	Value float64 `json:"value"`
	OK    bool    `json:"-"` // false: not available (no value in JSON)
}

// scaleResult is one run of a scale op on one target.
type scaleResult struct {
	Round   int      `json:"round"`
	Target  string   `json:"target"`
	Figures []figure `json:"-"`
	Notes   []string `json:"notes,omitempty"`
}

func (r *scaleResult) add(key, name string, u unit, v float64) {
	r.Figures = append(r.Figures, figure{key, name, u, v, true})
}

func (r *scaleResult) addMs(key, name string, d time.Duration) {
	r.add(key, name, unitDuration, float64(d)/float64(time.Millisecond))
}

func (r *scaleResult) addBytes(key, name string, v int64, ok bool) {
	r.Figures = append(r.Figures, figure{key, name, unitBytes, float64(v), ok})
}

// addMemory adds the memory figures of a run: before it, during it (the
// RSS as it is, then RSS and live heap after a forced GC), and the growth
// per item (znode, session, watcher). key names the moment in JSON keys,
// name in the text report.
func (r *scaleResult) addMemory(key, name, item string, n int, before, now, nowGC memSample) {
	r.addBytes("rss_before_bytes", "RSS before", before.rss, before.rssOK)
	r.addBytes("rss_"+key+"_bytes", "RSS "+name, now.rss, now.rssOK)
	r.addBytes("rss_"+key+"_gc_bytes", "RSS "+name+" + GC", nowGC.rss, nowGC.rssOK)
	r.addBytes("heap_before_bytes", "live heap before", before.heap, before.heapOK)
	r.addBytes("heap_"+key+"_bytes", "live heap "+name, nowGC.heap, nowGC.heapOK)
	perItem := func(a, b int64) int64 { return int64(math.Round(float64(b-a) / float64(n))) }
	r.addBytes("rss_per_"+item+"_bytes", "RSS growth per "+item, perItem(before.rss, now.rss), before.rssOK && now.rssOK)
	r.addBytes("heap_per_"+item+"_bytes", "live heap per "+item, perItem(before.heap, nowGC.heap), before.heapOK && nowGC.heapOK)
	for _, s := range []memSample{before, now, nowGC} {
		if s.err != nil {
			r.Notes = append(r.Notes, s.err.Error())
			break
		}
	}
}

// runScale runs a scale op on every target, alternating A, B, A, B, ...
// for -rounds rounds, and reports the figures side by side.
func runScale(ctx context.Context, o *options, targets []*target, out io.Writer) error {
	mems := make([]*procMem, len(targets))
	for i, t := range targets {
		mems[i] = findMemory(t.addrs)
	}
	rep := newScaleReporter(out, o, targets, mems)
	rep.header()
	for round := 1; round <= o.rounds; round++ {
		for i, t := range targets {
			res, err := runScaleOnce(ctx, o, t.addrs, mems[i])
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

func runScaleOnce(ctx context.Context, o *options, addrs []string, mem *procMem) (*scaleResult, error) {
	switch o.op {
	case opFill:
		return runFill(ctx, o, addrs, mem)
	case opSessions:
		return runSessions(ctx, o, addrs, mem)
	case opWatchers:
		return runWatchers(ctx, o, addrs, mem)
	case opWatches:
		return runWatches(ctx, o, addrs, mem)
	}
	return nil, fmt.Errorf("%s is not a scale op", o.op)
}

// runFill creates o.n znodes under a fresh parent and measures the server
// before and after; it deletes them again.
func runFill(ctx context.Context, o *options, addrs []string, mem *procMem) (res *scaleResult, err error) {
	sessions, err := openSessions(ctx, addrs, o.sessions, o.sessionTimeout)
	if err != nil {
		return nil, err
	}
	defer closeAll(sessions)
	c := sessions[0].Conn
	root := benchRoot()
	parent := root + "/fill"
	paths := make([]string, o.n)
	for i := range paths {
		paths[i] = fmt.Sprintf("%s/n%07d", parent, i)
	}
	if err := createParents(c, root, parent); err != nil {
		return nil, err
	}
	defer func() {
		// Named children: deleted without listing them (a list of 200,000
		// names is over ZooKeeper's 1 MB jute.maxbuffer).
		cerr := deleteAll(c, paths)
		for _, p := range []string{parent, root} {
			if err := c.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
				cerr = errors.Join(cerr, fmt.Errorf("delete %s: %w", p, err))
			}
		}
		if cerr != nil {
			err = errors.Join(err, fmt.Errorf("clean up %s: %w", root, cerr))
		}
	}()
	if err := syncAll(sessions, parent); err != nil {
		return nil, err
	}
	data := payload(o.size)

	before := mem.sample(ctx, true)
	start := time.Now()
	err = parallel(o.n, o.sessions*o.inflight, func(i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := sessions[i%len(sessions)].Create(paths[i], data, 0, openACL); err != nil {
			return fmt.Errorf("create %s: %w", paths[i], err)
		}
		return nil
	})
	elapsed := time.Since(start)
	if err != nil {
		return nil, err
	}
	after := mem.sample(ctx, false)
	if _, err := c.Sync(parent); err != nil {
		return nil, fmt.Errorf("sync %s: %w", parent, err)
	}
	_, st, err := c.Exists(parent)
	if err != nil {
		return nil, fmt.Errorf("exists %s: %w", parent, err)
	}
	if int(st.NumChildren) != o.n {
		return nil, fmt.Errorf("%s has %d children after the fill, want %d", parent, st.NumChildren, o.n)
	}
	afterGC := mem.sample(ctx, true)

	res = &scaleResult{}
	res.add("znodes", "znodes created", unitCount, float64(st.NumChildren))
	res.addMs("fill_ms", "fill time", elapsed)
	res.add("creates_per_s", "create rate", unitRate, float64(o.n)/elapsed.Seconds())
	res.addMemory("after", "after fill", "znode", o.n, before, after, afterGC)
	return res, nil
}

// runSessions opens o.n sessions, measures the server with them open and
// closes them.
func runSessions(ctx context.Context, o *options, addrs []string, mem *procMem) (*scaleResult, error) {
	if err := ensureOpenFiles(o.n, mem.inProcess); err != nil {
		return nil, err
	}
	before := mem.sample(ctx, true)
	cpu := startOpenCPU(mem.pids())
	start := time.Now()
	conns, err := openSessionsWith(ctx, o, addrs)
	elapsed := time.Since(start)
	if err != nil {
		return nil, err
	}
	serverCPU, clientCPU, cpuOK := cpu.since()
	ids := map[int64]bool{}
	for _, id := range conns.ids() {
		ids[id] = true
	}
	if len(ids) != o.n || ids[0] {
		conns.closeAll()
		return nil, fmt.Errorf("%d distinct session ids for %d sessions", len(ids), o.n)
	}
	open := mem.sample(ctx, false)
	openGC := mem.sample(ctx, true)
	closeCPU := startOpenCPU(mem.pids())
	start = time.Now()
	if err := conns.closeAll(); err != nil {
		return nil, err
	}
	closed := time.Since(start)
	serverCloseCPU, _, closeCPUOK := closeCPU.since()

	res := &scaleResult{}
	res.add("sessions", "sessions established", unitCount, float64(len(ids)))
	res.addMs("open_ms", "time to establish all", elapsed)
	res.add("sessions_per_s", "session rate", unitRate, float64(o.n)/elapsed.Seconds())
	res.addMs("close_ms", "time to close all", closed)
	if cpuOK {
		res.addMs("server_cpu_per_session_ms", "server CPU per session opened", serverCPU/time.Duration(o.n))
		res.addMs("client_cpu_per_session_ms", "zkbench CPU per session opened", clientCPU/time.Duration(o.n))
	}
	if closeCPUOK {
		res.addMs("server_cpu_per_close_ms", "server CPU per session closed", serverCloseCPU/time.Duration(o.n))
	}
	res.addMemory("open", "with sessions open", "session", o.n, before, open, openGC)
	return res, nil
}

// runWatchers has o.n sessions watch one znode, sets it from another
// session and times the delivery of every event.
func runWatchers(ctx context.Context, o *options, addrs []string, mem *procMem) (res *scaleResult, err error) {
	if err := ensureOpenFiles(o.n+1, mem.inProcess); err != nil {
		return nil, err
	}
	setter, err := connect(ctx, addrs, o.sessionTimeout)
	if err != nil {
		return nil, err
	}
	defer setter.close()
	root := benchRoot()
	node := root + "/watched"
	data := payload(o.size)
	if err := createParents(setter.Conn, root); err != nil {
		return nil, err
	}
	defer func() {
		for _, p := range []string{node, root} {
			if derr := setter.Delete(p, -1); derr != nil && !errors.Is(derr, zk.ErrNoNode) {
				err = errors.Join(err, fmt.Errorf("clean up: delete %s: %w", p, derr))
			}
		}
	}()
	if _, err := setter.Create(node, data, 0, openACL); err != nil {
		return nil, fmt.Errorf("create %s: %w", node, err)
	}

	before := mem.sample(ctx, true)
	// arrived[i] is when watcher i's event reached its client (nanoseconds
	// since base, plus one so that zero means not yet), taken in
	// go-zookeeper's receive loop through the event callback.
	base := time.Now()
	arrived := make([]atomic.Int64, o.n)
	var count atomic.Int64
	all := make(chan struct{})
	callback := func(i int) zk.EventCallback {
		return func(ev zk.Event) {
			if ev.Type != zk.EventNodeDataChanged || ev.Path != node {
				return
			}
			if arrived[i].CompareAndSwap(0, int64(time.Since(base))+1) && count.Add(1) == int64(o.n) {
				close(all)
			}
		}
	}
	watches := make([]<-chan zk.Event, o.n)
	start := time.Now()
	conns, err := openMany(ctx, o, addrs, callback, func(i int, s *session) error {
		_, _, ch, err := s.GetW(node)
		if err != nil {
			return fmt.Errorf("getData %s with a watch: %w", node, err)
		}
		watches[i] = ch
		return nil
	})
	setup := time.Since(start)
	if err != nil {
		return nil, err
	}
	defer closeAll(conns)
	watching := mem.sample(ctx, false)
	watchingGC := mem.sample(ctx, true)

	sent := time.Since(base)
	if _, err := setter.Set(node, data, -1); err != nil {
		return nil, fmt.Errorf("set %s: %w", node, err)
	}
	replied := time.Since(base)
	timer := time.NewTimer(watchersWait)
	defer timer.Stop()
	select {
	case <-all:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, fmt.Errorf("%d of %d watchers notified within %v of the set", count.Load(), o.n, watchersWait)
	}
	// The callback runs just before go-zookeeper hands the event to the
	// watch's channel: every channel must now get it.
	for i, ch := range watches {
		select {
		case ev := <-ch:
			if ev.Type != zk.EventNodeDataChanged {
				return nil, fmt.Errorf("watcher %d got %v, want %v", i, ev.Type, zk.EventNodeDataChanged)
			}
		case <-timer.C:
			return nil, fmt.Errorf("watcher %d: event seen by the client but not delivered on its channel", i)
		}
	}
	delays := make([]time.Duration, o.n)
	for i := range arrived {
		delays[i] = time.Duration(arrived[i].Load()-1) - sent
	}
	slices.Sort(delays)

	res = &scaleResult{}
	res.add("watchers", "watchers notified", unitCount, float64(count.Load()))
	res.addMs("watch_setup_ms", "time to open and watch", setup)
	res.addMs("set_reply_ms", "set reply after send", replied-sent)
	res.addMs("delivery_p50_ms", "event p50 after set sent", pick(delays, 50))
	res.addMs("delivery_p99_ms", "event p99 after set sent", pick(delays, 99))
	res.addMs("delivery_max_ms", "all notified after set sent", delays[len(delays)-1])
	res.addMemory("watching", "with watches set", "watcher", o.n, before, watching, watchingGC)
	return res, nil
}

// pick returns the p-th percentile of sorted durations (nearest rank).
func pick(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func payload(size int) []byte {
	data := make([]byte, size)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	return data
}

func createParents(c *zk.Conn, paths ...string) error {
	for _, p := range paths {
		if _, err := c.Create(p, nil, 0, openACL); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	return nil
}

// syncAll makes every session's server see path (in an ensemble).
func syncAll(sessions []*session, path string) error {
	for _, s := range sessions {
		if _, err := s.Sync(path); err != nil {
			return fmt.Errorf("sync %s: %w", path, err)
		}
	}
	return nil
}

// openMany opens o.n sessions, o.inflight at a time, each with the event
// callback cb(i) and then, if given, after(i, session). On error it closes
// the ones it opened.
func openMany(ctx context.Context, o *options, addrs []string, cb func(i int) zk.EventCallback,
	after ...func(i int, s *session) error) ([]*session, error) {
	// go-zookeeper gives each connection 1.5 MiB read and write buffers
	// unless told otherwise: 30 GB for 10,000 sessions. These sessions read
	// and write one small znode only.
	buf := max(4096, o.size+1024)
	conns := make([]*session, o.n)
	err := parallel(o.n, o.inflight, func(i int) error {
		s, err := dialSession(ctx, addrs, o.sessionTimeout, buf, cb(i))
		if err != nil {
			return fmt.Errorf("session %d: %w", i+1, err)
		}
		conns[i] = s
		for _, f := range after {
			if err := f(i, s); err != nil {
				return err
			}
		}
		return nil
	})
	opened := slices.DeleteFunc(conns, func(s *session) bool { return s == nil })
	if err != nil {
		closeAll(opened)
		return nil, err
	}
	return opened, nil
}

// dialSession opens a session like connect, with buffers of bufSize bytes
// and an event callback (nil for none).
func dialSession(ctx context.Context, servers []string, timeout time.Duration, bufSize int, cb zk.EventCallback) (*session, error) {
	c, events, err := zk.Connect(servers, timeout, zk.WithLogger(quietLogger{}),
		zk.WithMaxBufferSize(bufSize), zk.WithMaxConnBufferSize(bufSize), zk.WithEventCallback(cb), dialOption())
	if err != nil {
		return nil, err
	}
	return awaitSession(ctx, &session{Conn: c, events: events}, servers, timeout)
}
