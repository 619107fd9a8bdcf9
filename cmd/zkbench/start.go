package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/wire"
)

// -op start times a server process from its launch to its first
// successful write: t0 is taken just before the exec, then a probe loop
// dials the client port, opens a session and creates an ephemeral znode,
// starting a new probe about every millisecond until a create succeeds.
// The time is taken when the create's reply arrives, so it is not rounded
// up to a polling interval. Probes may overlap: ZooKeeper sometimes takes
// the connections made in a window of some 20 ms while it starts and never
// answers them, and a probe waiting for its timeout must not hold the
// loop. So a new probe starts at the next tick of probeRetry once fewer
// than maxFreshProbes younger than probeStale are under way (and fewer
// than maxOpenProbes in all): with one fresh probe, the loop is a tight
// sequential one as long as the server answers or refuses at once. The
// process is then stopped, and waited for, before the next launch. Each
// round starts a fresh server (a new directory, no data), alternating A,
// B, A, B.

// Limits of the start op.
const (
	defaultStartRounds = 10
	// startWait bounds the time from launch to the first write.
	startWait = 60 * time.Second
	// probeRetry is the interval at which probes may start.
	probeRetry = time.Millisecond
	// maxFreshProbes bounds the probes under way that started less than
	// probeStale ago; older ones, likely never to be answered, do not
	// hold up new ones (a starting ZooKeeper was seen to take up to
	// about 60 ms to answer; a second probe then runs beside the slow one).
	maxFreshProbes = 1
	probeStale     = 25 * time.Millisecond
	// maxOpenProbes bounds all probes under way.
	maxOpenProbes = 64
	// probeTimeout bounds one probe's dial, writes and reads.
	probeTimeout = 2 * time.Second
	// startLaunches is how often a round launches its server again when
	// the process exits before serving (most likely another process took
	// the free port picked for it).
	startLaunches = 3
	// probeSessionMs is the session timeout a probe asks for.
	probeSessionMs = 10000
)

// startTargetNames are the targets -op start can launch.
var startTargetNames = map[string]string{
	"zkserver":  "the zkserver binary",
	"zookeeper": "Apache ZooKeeper standalone",
}

// startDefaults gives -op start its default number of rounds.
func (o *options) startDefaults() {
	if o.op == opStart && o.rounds == 0 {
		o.rounds = defaultStartRounds
	}
}

// checkStartTargets rejects, for -op start, every target that zkbench does
// not launch as a single process of its own.
func (o *options) checkStartTargets() error {
	if o.op != opStart {
		return nil
	}
	for _, spec := range o.specs {
		if startTargetNames[spec] != "" {
			continue
		}
		why := fmt.Sprintf("%q is the address of a server started by others", spec)
		if _, sh, ok := builtinShape(spec); ok && sh.size() > 1 {
			why = spec + " is an ensemble of several processes"
		}
		switch spec {
		case "zkraft", "zkraft3":
			why = spec + " runs inside zkbench's own process"
		}
		return fmt.Errorf("-op start times a server process from its launch, so it needs a target zkbench launches itself: zkserver or zookeeper (%s)", why)
	}
	return nil
}

// startProcess is one launched server process.
type startProcess struct {
	addr    string
	started time.Time    // just before the exec
	exited  func() error // nil while the process runs
	stop    func()       // stops the process and waits for it
}

// launcher launches the server of one target, once per round.
type launcher struct {
	label, name, desc string
	dir               string // holds a directory per launch; removed by cleanup
	launch            func(dir string) (*startProcess, error)
}

// newLauncher prepares the launches of target spec.
func newLauncher(spec string, o *options) (*launcher, error) {
	dir, err := os.MkdirTemp("", "zkbench-start-"+spec+"-")
	if err != nil {
		return nil, err
	}
	l := &launcher{name: spec, dir: dir}
	switch spec {
	case "zkserver":
		bin, err := findZkserver(o.zkserver)
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("target zkserver: %w", err)
		}
		l.desc = "zkserver standalone, in memory, own process (" + bin + ")"
		l.launch = func(dir string) (*startProcess, error) { return launchZkserver(bin, dir, o.cfg) }
	case "zookeeper":
		opts := o.zooKeeperOptions()
		l.desc = "Apache ZooKeeper standalone, forceSync=" + o.forceSync.String() + ", JVM"
		l.launch = func(dir string) (*startProcess, error) { return launchZooKeeper(dir, opts) }
	default:
		os.RemoveAll(dir)
		return nil, fmt.Errorf("target %s: -op start cannot launch it", spec)
	}
	return l, nil
}

func (l *launcher) cleanup() { os.RemoveAll(l.dir) }

// launchZkserver starts the zkserver binary as an in-memory standalone
// server on a free port, without waiting for it.
func launchZkserver(bin, dir string, extra cfgFlag) (*startProcess, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p, err := startProc(bin, dir, extra.zoocfg(zkserverConfig(port, "", nil, false)), false)
	if err != nil {
		return nil, err
	}
	return &startProcess{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), started: p.started,
		exited: p.exited, stop: p.stop}, nil
}

// launchZooKeeper starts a standalone ZooKeeper JVM in dir, without
// waiting for it.
func launchZooKeeper(dir string, opts realzk.Options) (*startProcess, error) {
	s, err := realzk.Launch(dir, opts)
	if err != nil {
		return nil, err
	}
	return &startProcess{addr: s.Addr(), started: s.Started(), exited: s.Exited,
		stop: func() { s.Stop() }}, nil
}

// startRun is one round of one target.
type startRun struct {
	Round    int     `json:"round"`
	Target   string  `json:"target"`
	StartMs  float64 `json:"start_ms"`
	Addr     string  `json:"addr"`     // the server's client address in this round
	Probes   int     `json:"probes"`   // connection attempts, the successful one included
	Launches int     `json:"launches"` // more than one when a process exited early
}

var errExitedEarly = errors.New("server process exited before its first write")

// measure launches the target's server, times its first write and stops it.
func (l *launcher) measure(ctx context.Context, round int) (*startRun, error) {
	var lastErr error
	for launch := 1; launch <= startLaunches; launch++ {
		dir := filepath.Join(l.dir, fmt.Sprintf("round%d-%d", round, launch))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		p, err := l.launch(dir)
		if err != nil {
			return nil, err
		}
		elapsed, probes, err := firstWrite(ctx, p)
		p.stop()
		os.RemoveAll(dir)
		if err == nil {
			return &startRun{Round: round, Target: l.label, StartMs: float64(elapsed) / float64(time.Millisecond),
				Addr: p.addr, Probes: probes, Launches: launch}, nil
		}
		lastErr = err
		if !errors.Is(err, errExitedEarly) {
			break
		}
	}
	return nil, lastErr
}

// firstWrite probes p until a create succeeds and returns the time from
// p's launch to the create's reply, and the number of probes started.
// Probes still under way when it returns are cancelled and waited for.
func firstWrite(ctx context.Context, p *startProcess) (time.Duration, int, error) {
	deadline := p.started.Add(startWait)
	type outcome struct {
		probe int
		done  time.Time
		err   error
	}
	probeCtx, cancel := context.WithCancel(ctx)
	results := make(chan outcome, maxOpenProbes)
	open := map[int]time.Time{} // when each probe under way started
	probes := 0
	defer func() {
		cancel()
		for len(open) > 0 {
			delete(open, (<-results).probe)
		}
	}()
	start := func(now time.Time) {
		probes++
		id := probes
		open[id] = now
		go func() {
			done, err := probeWrite(probeCtx, p.addr, fmt.Sprintf("/zkbench-start-%d", id), deadline)
			results <- outcome{id, done, err}
		}()
	}
	start(time.Now())
	tick := time.NewTicker(probeRetry)
	defer tick.Stop()
	var lastErr error
	for {
		select {
		case r := <-results:
			delete(open, r.probe)
			if r.err == nil {
				return r.done.Sub(p.started), probes, nil
			}
			lastErr = r.err
		case now := <-tick.C:
			if xerr := p.exited(); xerr != nil {
				return 0, probes, fmt.Errorf("%w: %w", errExitedEarly, xerr)
			}
			if now.After(deadline) {
				return 0, probes, fmt.Errorf("no successful create on %s within %v of the launch (last probe: %v)", p.addr, startWait, lastErr)
			}
			fresh := 0
			for _, t := range open {
				if now.Sub(t) < probeStale {
					fresh++
				}
			}
			if fresh < maxFreshProbes && len(open) < maxOpenProbes {
				start(now)
			}
		case <-ctx.Done():
			return 0, probes, ctx.Err()
		}
	}
}

// probeWrite dials addr, opens a session and creates an ephemeral znode at
// path; it returns when the create's reply arrived. It fails when the
// server refuses or drops the connection, refuses the session (timeout 0)
// or answers the create with an error, and when ctx is cancelled.
func probeWrite(ctx context.Context, addr, path string, deadline time.Time) (time.Time, error) {
	d := net.Dialer{Deadline: deadline, Timeout: probeTimeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return time.Time{}, err
	}
	defer c.Close()
	if err := c.SetDeadline(earliest(deadline, time.Now().Add(probeTimeout))); err != nil {
		return time.Time{}, err
	}
	// Cancelling ctx ends a read or write under way.
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	req := wire.AppendFrame(nil, &wire.ConnectRequest{TimeOut: probeSessionMs, Passwd: make([]byte, 16)})
	if _, err := c.Write(req); err != nil {
		return time.Time{}, fmt.Errorf("send ConnectRequest: %w", err)
	}
	buf := make([]byte, 0, 256)
	frame, err := wire.ReadFrame(c, 0, buf)
	if err != nil {
		return time.Time{}, fmt.Errorf("read ConnectResponse: %w", err)
	}
	var resp wire.ConnectResponse
	if err := decode(frame, &resp); err != nil {
		return time.Time{}, fmt.Errorf("ConnectResponse: %w", err)
	}
	if resp.TimeOut <= 0 {
		return time.Time{}, errors.New("session refused (timeout 0)")
	}
	req = wire.AppendFrame(req[:0], &wire.RequestHeader{Xid: 1, Type: wire.OpCreate},
		&wire.CreateRequest{Path: path, Data: []byte{}, ACL: wire.OpenACLUnsafe, Flags: wire.FlagEphemeral})
	if _, err := c.Write(req); err != nil {
		return time.Time{}, fmt.Errorf("send create: %w", err)
	}
	for {
		frame, err := wire.ReadFrame(c, 0, buf)
		if err != nil {
			return time.Time{}, fmt.Errorf("read create reply: %w", err)
		}
		now := time.Now()
		var hdr wire.ReplyHeader
		if err := decode(frame, &hdr); err != nil {
			return time.Time{}, fmt.Errorf("create reply: %w", err)
		}
		if hdr.Xid != 1 {
			continue // not the reply (a notification, say)
		}
		if hdr.Err != wire.CodeOK {
			return time.Time{}, fmt.Errorf("create %s: %w (%d)", path, hdr.Err, int32(hdr.Err))
		}
		return now, nil
	}
}

// decode decodes the start of frame into rec.
func decode(frame []byte, rec wire.Record) error {
	d := wire.NewDecoder(frame, 0)
	rec.Decode(d)
	return d.Err()
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// runStart runs -op start: a launch of each target per round, A, B, A,
// B, ..., then the report.
func runStart(ctx context.Context, o *options, out io.Writer) error {
	var launchers []*launcher
	defer func() {
		for _, l := range launchers {
			l.cleanup()
		}
	}()
	for i, spec := range o.specs {
		l, err := newLauncher(spec, o)
		if err != nil {
			return err
		}
		l.label = string(rune('A' + i))
		launchers = append(launchers, l)
	}
	rep := &startReporter{w: out, o: o, launchers: launchers}
	rep.header()
	for round := 1; round <= o.rounds; round++ {
		for _, l := range launchers {
			run, err := l.measure(ctx, round)
			if errors.Is(err, context.Canceled) {
				err = errors.New("interrupted")
			}
			if err != nil {
				return fmt.Errorf("%s (%s), round %d: %w", l.label, l.name, round, err)
			}
			rep.add(run)
		}
	}
	return rep.finish()
}
