package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// result is one run's figures over its measured window.
type result struct {
	Round      int     `json:"round"`
	Target     string  `json:"target"`
	Ops        uint64  `json:"ops"`
	Errors     uint64  `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
	Seconds    float64 `json:"seconds"`
	OpsPerSec  float64 `json:"ops_per_sec"`
	Mean       latency `json:"mean_us"`
	P50        latency `json:"p50_us"`
	P99        latency `json:"p99_us"`
	P999       latency `json:"p999_us"`
	Max        latency `json:"max_us"`
	// ServerCPU is the servers' CPU time per operation in the measured
	// window (µs), for targets whose processes zkbench knows; else 0.
	ServerCPU float64 `json:"server_cpu_us_per_op,omitempty"`
	// ServerCPUByRole breaks ServerCPU down by the srvr Mode of each
	// server at the start of the round, into user and system time.
	ServerCPUByRole []roleCPU `json:"server_cpu_by_role,omitempty"`
	// HostSteal is the share of the machine's CPU time taken by other
	// guests of the hypervisor during the measured window, in percent.
	HostSteal float64 `json:"host_steal_pct"`
	// Leader is what -leaderwatch saw during the round (leaderwatch.go).
	Leader *leaderChanges `json:"leader,omitempty"`
	// ByRole breaks the figures down by the srvr Mode, at the start of
	// the round, of the server each session is on; for ensembles and
	// -role runs only.
	ByRole []roleResult `json:"by_role,omitempty"`
	// ModeChanges names the servers whose Mode changed during the round.
	ModeChanges string `json:"mode_changes,omitempty"`
}

// runBench opens the sessions, sets up a fresh bench root, runs the
// workload for -warmup and then -duration, and deletes the root again.
// procs are the servers' processes whose CPU time the window measures,
// with their roles (serverProcs).
func runBench(ctx context.Context, o *options, servers []string, procs ...cpuProc) (*result, error) {
	n := o.sessions
	if o.op == opConnect {
		n = 1 // only for setup and cleanup: each connect op opens its own
	}
	sessions, err := openSessions(ctx, servers, n, o.sessionTimeout)
	if err != nil {
		return nil, err
	}
	defer closeAll(sessions)
	var modes map[string]string
	if len(servers) > 1 || o.role != "any" {
		modes = assignRoles(sessions, srvrMode)
	}
	w := newWorkload(o, servers, benchRoot())
	res, err := setupAndMeasure(ctx, o, w, sessions, procs)
	if err == nil && modes != nil {
		res.ModeChanges = modeChanges(modes, srvrMode)
	}
	if cerr := w.cleanup(sessions[0].Conn); cerr != nil {
		err = errors.Join(err, fmt.Errorf("clean up %s: %w", w.root, cerr))
	}
	return res, err
}

func setupAndMeasure(ctx context.Context, o *options, w *workload, sessions []*session, procs []cpuProc) (*result, error) {
	if err := w.setup(sessions[0].Conn); err != nil {
		return nil, fmt.Errorf("set up %s: %w", w.root, err)
	}
	// In an ensemble, sessions on other servers must see the new znodes.
	for _, s := range sessions[1:] {
		if _, err := s.Sync(w.root); err != nil {
			return nil, fmt.Errorf("sync %s: %w", w.root, err)
		}
	}
	return measure(ctx, o, w, sessions, procs)
}

var rootSeq atomic.Int64

// benchRoot returns a znode path no other run uses.
func benchRoot() string {
	return fmt.Sprintf("/zkbench-%d-%d", time.Now().UnixNano(), rootSeq.Add(1))
}

// worker issues synchronous requests one after another; -inflight workers
// share each session, so that many requests are in flight on it.
type worker struct {
	w        *workload
	conn     *zk.Conn
	sess     *session // conn's session, with its server's role
	rng      *rand.Rand
	hist     *histogram
	errors   uint64
	firstErr error
}

// loop runs operations until end; those started at or after from are
// recorded in the worker's own histogram.
func (wk *worker) loop(ctx context.Context, from, end time.Time) {
	for ctx.Err() == nil {
		t0 := time.Now()
		if !t0.Before(end) {
			return
		}
		err := wk.w.do(ctx, wk.conn, wk.rng)
		d := time.Since(t0)
		if errors.Is(err, zk.ErrClosing) {
			return
		}
		switch {
		case t0.Before(from):
		case err != nil:
			wk.errors++
			if wk.firstErr == nil {
				wk.firstErr = err
			}
		default:
			wk.hist.record(d)
		}
	}
}

// measure runs sessions*inflight workers and merges their histograms.
func measure(ctx context.Context, o *options, w *workload, sessions []*session, procs []cpuProc) (*result, error) {
	workers := make([]*worker, o.sessions*o.inflight)
	for i := range workers {
		workers[i] = &worker{
			w:    w,
			conn: sessions[i%len(sessions)].Conn,
			sess: sessions[i%len(sessions)],
			rng:  rand.New(rand.NewPCG(uint64(i), 0x7a6b62656e6368)),
			hist: newHistogram(),
		}
	}
	from := time.Now().Add(o.warmup)
	end := from.Add(o.duration)
	cpu := &cpuWindow{procs: procs}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, wk := range workers {
		wg.Go(func() { wk.loop(ctx, from, end) })
	}
	var sampler sync.WaitGroup
	sampler.Go(func() { cpu.startAt(from, stop) })
	wg.Wait()
	close(stop)
	sampler.Wait()
	cpu.finish()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := summarize(workers, o.duration)
	res.ServerCPU = cpu.perOp(res.Ops)
	res.ServerCPUByRole = cpu.byRole(res.Ops)
	res.HostSteal = cpu.stealPercent()
	return res, nil
}

// summarize merges the workers' figures.
func summarize(workers []*worker, elapsed time.Duration) *result {
	h := newHistogram()
	r := &result{Seconds: elapsed.Seconds()}
	for _, wk := range workers {
		h.merge(wk.hist)
		r.Errors += wk.errors
		if r.FirstError == "" && wk.firstErr != nil {
			r.FirstError = wk.firstErr.Error()
		}
	}
	r.Ops = h.count()
	r.OpsPerSec = float64(r.Ops) / elapsed.Seconds()
	r.Mean = latency(h.mean())
	r.P50 = latency(h.percentile(50))
	r.P99 = latency(h.percentile(99))
	r.P999 = latency(h.percentile(99.9))
	r.Max = latency(h.maximum())
	r.ByRole = summarizeRoles(workers, elapsed)
	return r
}

// session is a connection with a session, and its event channel, which
// closes once the client's goroutines are done.
type session struct {
	*zk.Conn
	events <-chan zk.Event
	// server and role are the server the session was on at the start of
	// the round and its srvr Mode, when assignRoles has set them.
	server, role string
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// connect opens a session and waits until the server has granted it.
func connect(ctx context.Context, servers []string, timeout time.Duration) (*session, error) {
	return connectWith(ctx, servers, timeout, zk.NewDNSHostProvider())
}

// connectAt is connect trying the servers in order from servers[first]
// (modulo their number) rather than in a random order.
func connectAt(ctx context.Context, servers []string, first int, timeout time.Duration) (*session, error) {
	return connectWith(ctx, servers, timeout, &orderedHosts{servers: servers, first: first})
}

func connectWith(ctx context.Context, servers []string, timeout time.Duration, hosts zk.HostProvider) (*session, error) {
	c, events, err := zk.Connect(servers, timeout, zk.WithHostProvider(hosts), zk.WithLogger(quietLogger{}), dialOption())
	if err != nil {
		return nil, err
	}
	return awaitSession(ctx, &session{Conn: c, events: events}, servers, timeout)
}

// awaitSession waits until the server has granted s its session; on
// failure it closes s.
func awaitSession(ctx context.Context, s *session, servers []string, timeout time.Duration) (*session, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return nil, fmt.Errorf("connection to %v closed before a session was granted", servers)
			}
			if ev.State == zk.StateHasSession {
				return s, nil
			}
		case <-ctx.Done():
			s.close()
			return nil, ctx.Err()
		case <-timer.C:
			s.close()
			return nil, fmt.Errorf("no session from %v within %v", servers, timeout)
		}
	}
}

// close closes the session and waits (a bounded time) for the client's
// goroutines to finish.
func (s *session) close() {
	s.Conn.Close()
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-s.events:
			if !ok {
				return
			}
		case <-timer.C:
			return
		}
	}
}

// openSessions opens n sessions spread over the servers in turn (session
// i on servers[i mod len(servers)] while that one serves), closing them
// all if one fails.
func openSessions(ctx context.Context, servers []string, n int, timeout time.Duration) ([]*session, error) {
	sessions := make([]*session, 0, n)
	for i := range n {
		s, err := connectAt(ctx, servers, i, timeout)
		if err != nil {
			closeAll(sessions)
			return nil, err
		}
		sessions = append(sessions, s)
	}
	return sessions, nil
}

func closeAll(sessions []*session) {
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(s.close)
	}
	wg.Wait()
}

// parallel calls fn(0..n-1) from up to workers goroutines and returns the
// first error; after an error no new calls start.
func parallel(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var failed atomic.Bool
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for g := range min(workers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n && !failed.Load(); i = int(next.Add(1) - 1) {
				if err := fn(i); err != nil {
					errs[g] = err
					failed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
