package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// -op conns: as many client connections as one server holds (issue 30).
// For each target (started by zkbench, one at a time, and stopped after
// its run so the other target's process neither competes for the two
// cores nor holds memory) it:
//
//  1. probes another client's get/set latency without the connections
//     (connsprobe.go; after -warmup of the same), and reads the server's memory (memory.go);
//  2. opens -n connections, each a session that sets one data watch on a
//     shared znode (connsclient.go), -inflight at a time, and counts those
//     served (connect response and watch reply); a refused or failed
//     connection stops the opening after connsMaxFailures of them, so a
//     server at its limit shows where it stopped and why;
//  3. reads the server's RSS and live heap again (per connection: the
//     difference over the connections served) and its open descriptors,
//     and probes the other client with the connections idle;
//  4. fires the watch -conns-fires times (one setData each; the watches
//     are set again in between), timing every connection's event from the
//     send of the setData, with the probe running during each fan-out.
//
// The open-files limit is raised before the targets start, so they
// inherit it; where the hard limit cannot be raised, it is the limit.

const (
	defaultConnsN    = 10000
	connsSpareFiles  = 100   // beside the connections: the server's own files, zkbench's
	connsMaxFailures = 20    // failed opens before the opening stops
	connsPerSource   = 25000 // under the ephemeral range (32768-60999) per source address
	connsPath        = "/zkbench-conns"
	connsProbePath   = "/zkbench-conns-probe"
	connsOpenTimeout = 30 * time.Second // one connection's dial, handshake and watch
)

// connsFlags are -op conns's flags.
type connsFlags struct {
	sources int
	fires   int
	probe   time.Duration
	wait    time.Duration
}

func (b *connsFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&b.sources, "conns-sources", 0, "-op conns: spread the connections over source addresses 127.0.0.1..127.0.0.`N` (at most 254; 0: one per 25,000 connections; 1: the kernel picks 127.0.0.1)")
	fs.IntVar(&b.fires, "conns-fires", 5, "-op conns: times the watch is fired (and set again)")
	fs.DurationVar(&b.probe, "conns-probe", 5*time.Second, "-op conns: how long the other client's get/set latency is probed without the connections and with them idle")
	fs.DurationVar(&b.wait, "conns-wait", 2*time.Minute, "-op conns: the longest wait for every event of a fire, or every watch set again")
}

// sourcesFor returns the number of source addresses for n connections.
func (b *connsFlags) sourcesFor(n int) int {
	if b.sources > 0 {
		return b.sources
	}
	return max(1, (n+connsPerSource-1)/connsPerSource)
}

// connsSource is the source address of connection i of n over k
// addresses: nil (the kernel's choice) when k is 1.
func connsSource(i, k int) net.IP {
	if k <= 1 {
		return nil
	}
	return net.IPv4(127, 0, 0, byte(1+i%k)).To4()
}

// runConns starts each target in turn and measures it.
func runConns(ctx context.Context, o *options, out io.Writer) error {
	if o.n == 0 {
		o.n = defaultConnsN
	}
	if o.conns.fires < 1 || o.conns.probe <= 0 || o.conns.wait <= 0 || o.conns.sources < 0 || o.conns.sources > 254 {
		return errors.New("-conns-fires must be at least 1, -conns-probe and -conns-wait positive, -conns-sources between 0 and 254")
	}
	note, err := raiseOpenFilesMost(uint64(o.n + connsSpareFiles))
	if err != nil {
		return err
	}
	rep := newConnsReporter(out, o)
	rep.note(note)
	for round := 1; round <= o.rounds; round++ {
		for i, spec := range o.specs {
			res, err := connsTarget(ctx, o, spec)
			if err != nil {
				return fmt.Errorf("%s, round %d: %w", spec, round, err)
			}
			res.Round, res.Target, res.Name = round, string(rune('A'+i)), spec
			rep.add(res)
		}
	}
	return rep.finish()
}

// connsTarget starts one target, measures it and stops it.
func connsTarget(ctx context.Context, o *options, spec string) (*connsResult, error) {
	t, err := startTarget(ctx, spec, o)
	if err != nil {
		return nil, err
	}
	var once sync.Once
	stop := func() { once.Do(func() { t.stop() }) }
	defer stop()
	r := &connsRun{o: o, t: t, stopTarget: stop, res: &connsResult{Wanted: o.n, Desc: t.desc}}
	err = r.run(ctx)
	return r.res, err
}

// connsRun is one target's run.
type connsRun struct {
	o          *options
	t          *target
	stopTarget func()
	res        *connsResult
	control    *session // creates the znodes and fires the watch
	probe      *connsProbe
	hub        *connsHub
	stopKeeper func()
	conns      []atomic.Pointer[connsConn]
	served     []*connsConn
}

func (r *connsRun) run(ctx context.Context) error {
	defer r.cleanup()
	var err error
	if r.control, err = connect(ctx, r.t.addrs, r.o.sessionTimeout); err != nil {
		return fmt.Errorf("control session: %w", err)
	}
	for _, p := range []string{connsPath, connsProbePath} {
		if _, err := r.control.Create(p, nil, 0, openACL); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	ps, err := connect(ctx, r.t.addrs, r.o.sessionTimeout)
	if err != nil {
		return fmt.Errorf("probe session: %w", err)
	}
	r.probe = &connsProbe{s: ps, path: connsProbePath, data: make([]byte, r.o.size)}
	r.probe.runFor(ctx, r.o.warmup) // a cold JVM's first requests are slow
	r.res.Probe.Base = summarizeProbe(r.probe.runFor(ctx, r.o.conns.probe))
	mem := findMemory(r.t.addrs)
	before := mem.sample(ctx, true)
	clientBefore, _ := readRSS(os.Getpid())
	r.hub = &connsHub{path: connsPath}
	r.stopKeeper = r.keep()
	r.open(ctx)
	if len(r.served) == 0 {
		return fmt.Errorf("no connection served: %s", r.res.FirstOpenErr)
	}
	after := mem.sample(ctx, true)
	clientAfter, _ := readRSS(os.Getpid())
	r.res.memory(mem, before, after, clientAfter-clientBefore)
	r.res.Probe.Idle = summarizeProbe(r.probe.runFor(ctx, r.o.conns.probe))
	if err := r.fires(ctx); err != nil {
		return err
	}
	r.res.Lost = int(r.hub.lost.Load())
	if r.hub.firstErr != nil {
		r.res.FirstLost = r.hub.firstErr.Error()
	}
	r.res.Unexpected = int(r.hub.unexpected.Load())
	r.res.ArmErrors = int(r.hub.armErrors.Load())
	return ctx.Err()
}

// open opens the connections, -inflight at a time, until all are open or
// connsMaxFailures have failed.
func (r *connsRun) open(ctx context.Context) {
	n, k := r.o.n, r.o.conns.sourcesFor(r.o.n)
	r.res.Sources = k
	r.conns = make([]atomic.Pointer[connsConn], n)
	var failures atomic.Int64
	var mu sync.Mutex
	start := time.Now()
	parallel(n, r.o.inflight, func(i int) error {
		addr := r.t.addrs[i%len(r.t.addrs)]
		s, err := dialConns(ctx, addr, connsSource(i, k), connsPath, connsOpenTimeout)
		if err != nil {
			mu.Lock()
			if r.res.FirstOpenErr == "" {
				r.res.FirstOpenErr = fmt.Sprintf("connection %d: %v (after %v)", i+1, err, time.Since(start).Round(time.Millisecond))
			}
			mu.Unlock()
			if failures.Add(1) >= connsMaxFailures || ctx.Err() != nil {
				return errors.New("too many failures")
			}
			return nil
		}
		c := &connsConn{raw: s, idx: i}
		r.conns[i].Store(c)
		go c.read(r.hub)
		return nil
	})
	r.res.OpenSeconds = time.Since(start).Seconds()
	r.res.OpenFailures = int(failures.Load())
	for i := range r.conns {
		if c := r.conns[i].Load(); c != nil {
			r.served = append(r.served, c)
		}
	}
	r.res.Served = len(r.served)
	if fds, err := serverFDs(r.t.addrs); err == nil {
		r.res.ServerFDs = fds
	}
}

// keep pings every open connection a third of the session timeout apart
// (the opening itself may take longer than a session timeout).
func (r *connsRun) keep() (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(r.o.sessionTimeout / 3)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			for i := range r.conns {
				if c := r.conns[i].Load(); c != nil {
					c.raw.ping() // a failure shows in the reader
				}
			}
		}
	})
	return func() { close(quit); wg.Wait() }
}

// cleanup closes the probe and control sessions while the server runs
// (a go-zookeeper session of a stopped server waits for its close), stops
// the pings and the target, then closes the held connections: the server
// closing first leaves the TIME_WAIT sockets on its side, not on
// zkbench's ephemeral ports, which the next target needs.
func (r *connsRun) cleanup() {
	if r.probe != nil {
		r.probe.s.close()
	}
	if r.control != nil {
		r.control.close()
	}
	if r.stopKeeper != nil {
		r.stopKeeper()
	}
	if r.hub != nil {
		r.hub.closing.Store(true)
	}
	r.stopTarget()
	for i := range r.conns {
		if c := r.conns[i].Load(); c != nil {
			c.raw.conn.Close()
		}
	}
}

// serverFDs counts the open descriptors of the target's processes.
func serverFDs(addrs []string) (int, error) {
	m := findMemory(addrs)
	if len(m.procs) == 0 {
		return 0, errors.New(m.why)
	}
	total := 0
	for _, p := range m.procs {
		ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p.pid))
		if err != nil {
			return 0, err
		}
		total += len(ents)
	}
	return total, nil
}
