package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// -op bigtree (issue 30): a big tree on a three-server ensemble, one
// target at a time (so that three zkserver processes and three ZooKeeper
// JVMs never hold their trees in memory together). Per target zkbench
// starts the ensemble itself and runs these phases, in the order fill,
// memory, restart, snapshot, catchup (the most wanted figures first, in
// case a later phase fails on a big tree):
//
//	fill      -n znodes of -size bytes, spread over -bigtree-parents
//	          parents under /bigtree, created -bigtree-batch to a multi (1,000 parents of 10,000 children at
//	          10M, the shape large users have, rather than one parent of
//	          ten million children); always runs, the others need the tree
//	memory    the RSS and live heap of the three processes summed, before
//	          and after the fill, and the growth per znode; with
//	          -bigtree-idle D, the RSS again after D without requests
//	snapshot  -bigtree-writers sessions set random znodes while zkbench
//	          watches every server's data directory for a snapshot being
//	          written (bigtreesnap.go); the writes that overlap a snapshot
//	          are compared with the same run's writes that do not
//	catchup   a client on the leader sets znodes; one follower is killed,
//	          its data directory wiped, and it is started again: it must
//	          catch up by a snapshot from the leader; the client's p99
//	          before and during the catch-up, and the catch-up time
//	restart   every server is killed (SIGKILL), then all are started again:
//	          the time until each one serves a read of the tree
//
// Both servers snapshot on their own every (snapCount/2, snapCount]
// transactions (zkraft: consensus/snapcount.go; ZooKeeper 3.8's
// SyncRequestProcessor), with the same snapCount (default 100000, or
// -cfg snapCount=N for both), which is the fair way to snapshot both:
// ZooKeeper 3.8 has no on-demand snapshot. snapCount counts transactions,
// and a fill multi of -bigtree-batch creates is one: with 100 creates a
// multi, a snapshot comes only every 5M to 10M znodes, so the restart
// phase reads a snapshot and replays up to that many creates from the log
// on both servers.

// Phases of -op bigtree.
const (
	phaseFill     = "fill"
	phaseMemory   = "memory"
	phaseSnapshot = "snapshot"
	phaseCatchup  = "catchup"
	phaseRestart  = "restart"
)

var bigtreePhases = []string{phaseFill, phaseMemory, phaseRestart, phaseSnapshot, phaseCatchup}

const defaultBigtreeN = 1000000

// bigtreeFlags are -op bigtree's flags.
type bigtreeFlags struct {
	phaseList string
	phases    map[string]bool
	parents   int
	batch     int // creates per multi in the fill
	writers   int
	window    time.Duration // the writers' window before a snapshot or catch-up
	snapWait  time.Duration // the longest the writers wait for every server's snapshot
	catchWait time.Duration // the longest a wiped follower may take to catch up
	idle      time.Duration // the memory phase's wait, without requests, before its last RSS sample
}

func (b *bigtreeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&b.phaseList, "bigtree-phases", strings.Join(bigtreePhases, ","),
		"-op bigtree: the phases to run, a comma list of "+strings.Join(bigtreePhases, ", ")+" (fill always runs)")
	fs.IntVar(&b.parents, "bigtree-parents", 1000, "-op bigtree: parents the -n znodes are spread over")
	fs.IntVar(&b.batch, "bigtree-batch", 100, "-op bigtree: creates per multi request in the fill (1: plain creates)")
	fs.IntVar(&b.writers, "bigtree-writers", 16, "-op bigtree: writer sessions of the snapshot phase")
	fs.DurationVar(&b.window, "bigtree-window", 10*time.Second,
		"-op bigtree: writes measured before the catch-up, and at least this long in the snapshot phase")
	fs.DurationVar(&b.snapWait, "bigtree-snapwait", 3*time.Minute,
		"-op bigtree: the longest the snapshot phase writes while waiting for every server to snapshot")
	fs.DurationVar(&b.catchWait, "bigtree-catchwait", 10*time.Minute, "-op bigtree: the longest a wiped follower may take to catch up")
	fs.DurationVar(&b.idle, "bigtree-idle", 0,
		"-op bigtree: after the memory phase's samples, wait this long without requests and sample the RSS again (0: not)")
}

// parsePhases checks -bigtree-phases; fill is added when missing.
func parsePhases(list string) (map[string]bool, error) {
	phases := map[string]bool{phaseFill: true}
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !slices.Contains(bigtreePhases, p) {
			return nil, fmt.Errorf("-bigtree-phases: unknown phase %q, want a comma list of %s", p, strings.Join(bigtreePhases, ", "))
		}
		phases[p] = true
	}
	return phases, nil
}

func (b *bigtreeFlags) validate(o *options) error {
	phases, err := parsePhases(b.phaseList)
	if err != nil {
		return err
	}
	b.phases = phases
	if b.parents < 1 || b.writers < 1 || b.batch < 1 {
		return fmt.Errorf("-bigtree-parents %d, -bigtree-batch %d and -bigtree-writers %d must be positive", b.parents, b.batch, b.writers)
	}
	if o.n < b.parents {
		return fmt.Errorf("-n %d is below -bigtree-parents %d", o.n, b.parents)
	}
	return nil
}

// runBigtree starts each target in turn, runs the phases on it and stops
// it before the next one starts.
func runBigtree(ctx context.Context, o *options, out io.Writer) error {
	if o.n == 0 {
		o.n = defaultBigtreeN
	}
	if err := o.bigtree.validate(o); err != nil {
		return err
	}
	if _, err := raiseOpenFiles(4 * o.bigtree.writers); err != nil {
		return err
	}
	rep := newScaleReporter(out, o, nil, nil)
	if !o.json {
		fmt.Fprintf(out, "op=bigtree n=%d parents=%d batch=%d size=%d phases=%s sessions=%d inflight=%d writers=%d window=%v rounds=%d\n",
			o.n, o.bigtree.parents, o.bigtree.batch, o.size, phaseNames(o.bigtree.phases), o.sessions, o.inflight, o.bigtree.writers, o.bigtree.window, o.rounds)
	}
	for round := 1; round <= o.rounds; round++ {
		for i, spec := range o.specs {
			label := string(rune('A' + i))
			res, t, mem, err := bigtreeTarget(ctx, o, spec, label, round, out)
			if t != nil && round == 1 {
				rep.targets = append(rep.targets, t)
				rep.mems = append(rep.mems, mem)
			}
			if errors.Is(err, context.Canceled) {
				err = errors.New("interrupted")
			}
			if err != nil {
				if res != nil && len(res.Figures) > 0 {
					rep.add(res)
					rep.finish()
				}
				return fmt.Errorf("%s (%s), round %d: %w", label, spec, round, err)
			}
			rep.add(res)
		}
	}
	return rep.finish()
}

func phaseNames(phases map[string]bool) string {
	var names []string
	for _, p := range bigtreePhases {
		if phases[p] {
			names = append(names, p)
		}
	}
	return strings.Join(names, ",")
}

// bigtreeTarget starts one target, runs the phases and stops it. It
// returns the figures gathered so far even when a phase fails.
func bigtreeTarget(ctx context.Context, o *options, spec, label string, round int, out io.Writer) (*scaleResult, *target, *procMem, error) {
	start := time.Now()
	t, err := startTarget(ctx, spec, o)
	if err != nil {
		return nil, nil, nil, err
	}
	defer t.stop()
	t.label = label
	if len(t.addrs) < 3 || t.members == nil {
		return nil, t, nil, fmt.Errorf("-op bigtree: target %s is not an ensemble whose processes zkbench runs (zkserver3, zookeeper3, ...)", t.name)
	}
	mem := findMemory(t.addrs)
	if !o.json {
		fmt.Fprintf(out, "%s: %s: %s, %s\n   %s\n", label, t.name, t.desc, strings.Join(t.addrs, ","), mem.describe())
	}
	res := &scaleResult{Round: round, Target: label}
	b := &bigtree{o: o, t: t, mem: mem, res: res, out: out}
	err = b.run(ctx)
	res.addMs("bigtree_total_ms", "target total (start to stop)", time.Since(start))
	return res, t, mem, err
}

// bigtree is the run of the phases on one target.
type bigtree struct {
	o   *options
	t   *target
	mem *procMem
	res *scaleResult
	out io.Writer
}

func (b *bigtree) run(ctx context.Context) error {
	ph := b.o.bigtree.phases
	var before memSample
	if ph[phaseMemory] {
		before = b.mem.sample(ctx, true)
	}
	if err := b.fill(ctx); err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	if ph[phaseMemory] {
		after := b.mem.sample(ctx, false)
		afterGC := b.mem.sample(ctx, true)
		b.res.addMemory("after", "after fill", "znode", b.o.n, before, after, afterGC)
		b.progress("memory: RSS %s, live heap %s after the fill", formatBytes(float64(afterGC.rss)), formatBytes(float64(afterGC.heap)))
		if err := b.idleMemory(ctx, before); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	steps := []struct {
		name string
		run  func(context.Context) error
	}{{phaseRestart, b.restart}, {phaseSnapshot, b.snapshot}, {phaseCatchup, b.catchup}}
	for _, s := range steps {
		if !ph[s.name] {
			continue
		}
		if err := s.run(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// progress prints a line on a long run's way (not with -json).
func (b *bigtree) progress(format string, args ...any) {
	if b.o.json {
		return
	}
	fmt.Fprintf(b.out, "   %s %s: %s\n", time.Now().UTC().Format("15:04:05"), b.t.label, fmt.Sprintf(format, args...))
}

// idleMemory waits -bigtree-idle without requests, printing the RSS every
// half minute, and adds the RSS then and its growth per znode since
// before the fill: what a server holding the tree keeps once its
// collector and the runtime have had time to hand memory back.
func (b *bigtree) idleMemory(ctx context.Context, before memSample) error {
	d := b.o.bigtree.idle
	if d <= 0 {
		return nil
	}
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	end := time.NewTimer(d)
	defer end.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			b.progress("memory: RSS %s while idle", formatBytes(float64(b.mem.sample(ctx, false).rss)))
		case <-end.C:
			done = true
		}
	}
	idle := b.mem.sample(ctx, false)
	name := fmt.Sprintf("after %v idle", d)
	b.res.addBytes("rss_idle_bytes", "RSS "+name, idle.rss, idle.rssOK)
	b.res.addBytes("rss_idle_per_znode_bytes", "RSS growth per znode "+name,
		int64(math.Round(float64(idle.rss-before.rss)/float64(b.o.n))), idle.rssOK && before.rssOK)
	if idle.err != nil {
		b.res.Notes = append(b.res.Notes, idle.err.Error())
	}
	return nil
}
