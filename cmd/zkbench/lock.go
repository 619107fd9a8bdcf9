package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/recipes"
)

// -op lock: -sessions clients contend for one exclusive lock, each in a
// loop of acquire, an empty critical section, release. Per acquisition it
// records the handoff, the time from the previous holder beginning its
// release to the acquire returning, which is what a waiting client pays
// per turn: the delete's commit, the watch event to the next waiter, its
// getChildren. Two lock clients run in turn on every target: zkraft's
// recipes.Lock on go-zookeeper ("go") and Apache Curator's
// InterProcessMutex ("curator", a JVM running curator/LockBench.java).
// Without -kills each client is pinned to one server, round-robin over
// the servers -role selects, and the handoffs are also split by the role
// of the acquiring client's server; with -kills every client is given all
// the servers, and the leader is killed and restarted -kills times.

// Lock clients (-lockclients).
const (
	lockClientGo      = "go"
	lockClientCurator = "curator"
)

// lockResult is one round of one lock client on one target.
type lockResult struct {
	Round  int    `json:"round"`
	Target string `json:"target"`
	Client string `json:"client"`
	lockStats
	Errors     uint64 `json:"errors"`
	FirstError string `json:"first_error,omitempty"`
	leaderChanges
	Kills []killEvent `json:"kills,omitempty"`
}

// lockDriver runs one round of a lock client: one client per entry of
// conns (its connect string), the window starting after o.warmup; it calls
// started when the window begins.
type lockDriver func(ctx context.Context, o *options, conns []string, started func()) (*lockRun, error)

// lockDefaults checks -kills and -lockclients.
func (o *options) lockDefaults() error {
	if o.kills < 0 {
		return fmt.Errorf("-kills %d must not be negative", o.kills)
	}
	if o.kills > 0 && o.op != opLock {
		return fmt.Errorf("-kills applies to -op lock, not %s", o.op)
	}
	o.lockClientList = nil
	for _, c := range strings.Split(o.lockClients, ",") {
		c = strings.TrimSpace(c)
		if c != lockClientGo && c != lockClientCurator {
			return fmt.Errorf("-lockclients %q: want go, curator or both, comma-separated", o.lockClients)
		}
		o.lockClientList = append(o.lockClientList, c)
	}
	return nil
}

// runLock runs the rounds: per round, per target, each lock client.
func runLock(ctx context.Context, o *options, targets []*target, out io.Writer) error {
	drivers := map[string]lockDriver{lockClientGo: runGoLock}
	clients := []string{}
	for _, c := range o.lockClientList {
		if c == lockClientCurator {
			cur, err := prepareCurator()
			if err != nil {
				fmt.Fprintf(out, "zkbench: skipping the Curator lock client: %v\n", err)
				continue
			}
			defer cur.remove()
			drivers[c] = cur.run
		}
		clients = append(clients, c)
	}
	if len(clients) == 0 {
		return errors.New("-op lock: no lock client can run")
	}
	for _, t := range targets {
		if o.kills > 0 && (t.members == nil || len(t.addrs) < 3) {
			return fmt.Errorf("-kills: target %s is not an ensemble whose processes zkbench runs (zkserver3 or zookeeper3)", t.name)
		}
	}
	rep := newLockReporter(out, o, targets, clients)
	rep.header()
	for round := 1; round <= o.rounds; round++ {
		for _, t := range targets {
			for _, c := range clients {
				res, err := lockRound(ctx, o, t, drivers[c])
				if errors.Is(err, context.Canceled) {
					err = errors.New("interrupted")
				}
				if err != nil {
					return fmt.Errorf("%s (%s), %s lock client, round %d: %w", t.label, t.name, c, round, err)
				}
				res.Round, res.Target, res.Client = round, t.label, c
				rep.add(res)
			}
		}
	}
	return rep.finish()
}

// lockRound runs one driver on one target and summarizes it.
func lockRound(ctx context.Context, o *options, t *target, drive lockDriver) (*lockResult, error) {
	addrs, err := roleAddrs(t.addrs, o.role)
	if err != nil {
		return nil, err
	}
	conns, roleOf := pinClients(o.sessions, addrs)
	if o.kills > 0 {
		conns, roleOf = spreadClients(o.sessions, t.addrs)
	}
	watch := watchLeaders(t.addrs, 250*time.Millisecond)
	var kills []killEvent
	var killers sync.WaitGroup
	killCtx, stopKills := context.WithCancel(ctx)
	started := func() {
		start := time.Now()
		if o.kills > 0 {
			killers.Go(func() { kills = killLeaders(killCtx, t, start, killTimes(o.kills, o.duration)) })
		}
	}
	run, err := drive(ctx, o, conns, started)
	stopKills()
	killers.Wait()
	changes := watch.finish()
	if err != nil {
		return nil, err
	}
	res := &lockResult{lockStats: summarizeLock(run, o.duration, roleOf), Errors: run.errors,
		FirstError: run.first, leaderChanges: changes, Kills: kills}
	return res, nil
}

// pinClients gives client i the server addrs[i % len(addrs)] alone and
// maps each client to that server's srvr Mode.
func pinClients(n int, addrs []string) ([]string, func(int) string) {
	modes := make([]string, len(addrs))
	for i, a := range addrs {
		m, err := realzk.Mode(a, 2*time.Second)
		if err != nil {
			m = "unknown"
		}
		modes[i] = m
	}
	conns := make([]string, n)
	for i := range conns {
		conns[i] = addrs[i%len(addrs)]
	}
	return conns, func(c int) string { return modes[c%len(addrs)] }
}

// spreadClients gives every client all the servers (the client picks one,
// and moves on when it fails); handoffs are not split by role.
func spreadClients(n int, addrs []string) ([]string, func(int) string) {
	conns := make([]string, n)
	for i := range conns {
		conns[i] = strings.Join(addrs, ",")
	}
	return conns, func(int) string { return "" }
}

// noRelease marks the first acquisition, which has no previous holder.
const noRelease = math.MinInt64

// runGoLock is the Go lock client: recipes.Lock over go-zookeeper, one
// session per client, all in this process.
func runGoLock(ctx context.Context, o *options, conns []string, started func()) (*lockRun, error) {
	sessions := make([]*session, 0, len(conns))
	defer func() { closeAll(sessions) }()
	for _, c := range conns {
		s, err := connect(ctx, strings.Split(c, ","), o.sessionTimeout)
		if err != nil {
			return nil, err
		}
		sessions = append(sessions, s)
	}
	dir := fmt.Sprintf("/zkbench-lock-%d-%d", time.Now().UnixNano(), rootSeq.Add(1))
	start := time.Now().Add(o.warmup)
	end := start.Add(o.duration)
	var lastRelease atomic.Int64
	lastRelease.Store(noRelease)
	clients := make([]*goLockClient, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		clients[i] = &goLockClient{id: i, lock: recipes.NewLock(s.Conn, dir), start: start, end: end, last: &lastRelease}
		wg.Go(func() { clients[i].loop(ctx) })
	}
	startTimer := time.AfterFunc(time.Until(start), started)
	wg.Wait()
	startTimer.Stop()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	run := &lockRun{}
	for _, c := range clients {
		run.records = append(run.records, c.records...)
		run.errors += c.errors
		if run.first == "" && c.firstErr != nil {
			run.first = c.firstErr.Error()
		}
	}
	removeLockDir(sessions[0].Conn, dir)
	return run, nil
}

// goLockClient is one contender of the Go lock client.
type goLockClient struct {
	id         int
	lock       *recipes.Lock
	start, end time.Time
	last       *atomic.Int64 // when the last holder began its release, since start
	records    []lockRecord
	errors     uint64
	firstErr   error
}

// loop acquires and releases until the window ends.
func (c *goLockClient) loop(ctx context.Context) {
	for ctx.Err() == nil && time.Now().Before(c.end) {
		lctx, cancel := context.WithDeadline(ctx, c.end)
		err := c.lock.Lock(lctx)
		cancel()
		if err != nil {
			if lctx.Err() != nil {
				return // the window ended while waiting
			}
			c.fail(err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		acq := time.Since(c.start)
		rec := lockRecord{client: c.id, acquired: acq, handoff: -1}
		if prev := c.last.Load(); prev != noRelease {
			rec.handoff = max(0, acq-time.Duration(prev))
		}
		c.last.Store(int64(time.Since(c.start)))
		if err := c.lock.Unlock(ctx); err != nil {
			c.fail(err)
			rec.done = -1
		} else {
			rec.done = time.Since(c.start)
		}
		c.records = append(c.records, rec)
	}
}

func (c *goLockClient) fail(err error) {
	c.errors++
	if c.firstErr == nil {
		c.firstErr = err
	}
}

// removeLockDir deletes a lock directory the clients have left (empty once
// their sessions are closed or their nodes deleted); failures are ignored:
// it is only tidying up.
func removeLockDir(c *zk.Conn, dir string) {
	c.Sync(dir)
	kids, _, err := c.Children(dir)
	if err == nil {
		for _, k := range kids {
			c.Delete(dir+"/"+k, -1)
		}
	}
	c.Delete(dir, -1)
}
