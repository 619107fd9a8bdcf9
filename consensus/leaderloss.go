package consensus

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// Fast detection of a dead leader.
//
// Raft notices a dead leader when a follower has heard nothing from it for
// a heartbeat timeout (one tick, then a random wait of up to another), so
// with tickTime=2000 an ensemble whose leader process died stayed without
// a leader for 2-4 s plus the election. ZooKeeper's followers notice at
// once that their TCP connection to the leader broke. Followers here keep
// their forwarding connection to the leader open at all times, and when it
// breaks they dial the leader again at once: a leader process that is
// alive answers (the link broke for another reason), one that died is
// refused by its host. Only then does the follower suspect the leader: it
// shortens its heartbeat and election timeouts to the leader lease
// (leaseTimeout), timed so that Raft's own check (no AppendEntries from the
// leader for that long) fires the moment the lease has passed since the
// leader was last heard. Every follower whose link broke does so at about
// the same time, so they clear their leader together and the first
// candidate's pre-vote and vote succeed at once.
//
// A live leader reaches each follower well within its lease (heartbeats
// every tenth to fifth of the heartbeat timeout, AppendEntries every
// CommitTimeout), and a leader that cannot reach a quorum within the lease
// steps down anyway, so the shortened timeout deposes no leader that
// could still lead; Raft's pre-vote keeps a follower that suspects wrongly
// from disturbing the others. The timeouts return to normal as soon as a
// leader is known again, or after one normal election timeout.

// leaseTimeout is Raft's LeaderLeaseTimeout in an ensemble whose heartbeat
// timeout is heartbeat (one tick): a third of it, but at least 500 ms
// (heartbeats leave a leader every tenth to fifth of the heartbeat timeout,
// and a loaded machine delays them: with 250 ms, leaders of the test
// ensembles, ticking every 500 ms, stepped down under the race detector),
// and never more than heartbeat.
func leaseTimeout(heartbeat time.Duration) time.Duration {
	return max(heartbeat/3, min(heartbeat, 500*time.Millisecond))
}

// timeouts owns Raft's heartbeat and election timeouts in an ensemble,
// which two conditions change: a full disk slows elections down (see
// diskguard.go) and a suspected leader speeds their start up.
type timeouts struct {
	mu      sync.Mutex
	r       *raft.Raft
	self    raft.ServerID
	base    raft.ReloadableConfig // as configured
	quick   time.Duration         // the timeouts while the leader is suspected
	slow    bool
	suspect bool
	timers  []*time.Timer // of the current suspicion
}

func newTimeouts(r *raft.Raft, self raft.ServerID, lease time.Duration) *timeouts {
	return &timeouts{r: r, self: self, base: r.ReloadableConfig(), quick: lease}
}

// slowDown turns the full-disk slowdown on or off.
func (t *timeouts) slowDown(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.slow = on
	t.applyLocked()
}

// suspectLeader shortens the timeouts once the lease, plus this server's
// stagger, has passed since the leader was last heard, until a leader is
// known again (settled) or a normal election timeout has passed.
func (t *timeouts) suspectLeader(leader raft.ServerID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.timers) > 0 {
		return
	}
	wait := t.quick + t.stagger(leader) - time.Since(t.r.LastContact())
	t.armLocked(max(wait, 0))
}

// armLocked starts a suspicion: the timeouts shorten after wait, and
// return to normal after one normal election timeout unless a leader is
// known before (settled). The caller holds mu.
func (t *timeouts) armLocked(wait time.Duration) {
	t.timers = []*time.Timer{
		time.AfterFunc(wait, t.shorten),
		time.AfterFunc(t.base.ElectionTimeout, t.settled),
	}
}

// lookAtStart shortens the timeouts as soon as the server starts, until a
// leader is known or a normal election timeout has passed. A server that
// has just started has heard from no leader, so nothing is lost by looking
// for one at once: Raft would otherwise first wait out a whole heartbeat
// timeout (one to two ticks), which after an ensemble-wide restart is most
// of the time until it serves (ZooKeeper's servers start their election
// as soon as they are up). The stagger by id (no leader is excluded)
// spaces the first candidates apart as in suspectLeader; a server that
// starts into a live ensemble hears its leader within the lease and
// settles, and pre-vote keeps it from disturbing the others.
func (t *timeouts) lookAtStart() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.timers) > 0 {
		return
	}
	t.armLocked(t.stagger(""))
}

// stagger spaces the suspecting followers' elections apart, by the rank of
// this server's id among the voters other than leader: two followers that
// stood at the same moment would split the vote and wait a whole election
// timeout to try again. With the stagger, the first to stand is refused
// (the others still know the old leader), and the next one finds it
// leaderless and wins at once.
func (t *timeouts) stagger(leader raft.ServerID) time.Duration {
	f := t.r.GetConfiguration()
	if f.Error() != nil {
		return 0
	}
	var ids []int64
	for _, s := range f.Configuration().Servers {
		if s.Suffrage == raft.Voter && s.ID != leader {
			if id, err := strconv.ParseInt(string(s.ID), 10, 64); err == nil {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	self, _ := strconv.ParseInt(string(t.self), 10, 64)
	rank := max(slices.Index(ids, self), 0)
	return time.Duration(rank) * max(t.quick/20, 10*time.Millisecond)
}

func (t *timeouts) shorten() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.timers) > 0 && !t.suspect {
		t.suspect = true
		t.applyLocked()
	}
}

// settled ends a suspicion.
func (t *timeouts) settled() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopTimersLocked()
	if t.suspect {
		t.suspect = false
		t.applyLocked()
	}
}

func (t *timeouts) suspecting() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.suspect
}

func (t *timeouts) applyLocked() {
	rc := t.r.ReloadableConfig()
	rc.HeartbeatTimeout, rc.ElectionTimeout = t.base.HeartbeatTimeout, t.base.ElectionTimeout
	switch {
	case t.slow:
		rc.HeartbeatTimeout *= fullDiskElectionSlowdown
		rc.ElectionTimeout *= fullDiskElectionSlowdown
	case t.suspect:
		rc.HeartbeatTimeout, rc.ElectionTimeout = t.quick, t.quick
	}
	t.r.ReloadConfig(rc) // fails only for invalid values, which these are not
}

// stop ends any suspicion timer, for Close.
func (t *timeouts) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopTimersLocked()
}

func (t *timeouts) stopTimersLocked() {
	for _, tm := range t.timers {
		tm.Stop()
	}
	t.timers = nil
}

// watchLeader keeps a follower's forwarding connection to each new leader
// open and ends a suspicion once a leader is known. The returned function
// stops it.
func (n *Node) watchLeader() (stop func()) {
	ch := make(chan raft.Observation, 16)
	obs := raft.NewObserver(ch, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	n.raft.RegisterObserver(obs)
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.fwdCli.connect() // a leader elected before the observer was registered
		n.syncInBackground()
		for o := range ch {
			if o.Data.(raft.LeaderObservation).LeaderID == "" {
				continue
			}
			n.leaderKnown.notify()
			n.syncInBackground()
			n.timeouts.settled()
			if !n.leading() {
				n.fwdCli.connect()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			n.raft.DeregisterObserver(obs)
			close(ch)
			<-done
		})
	}
}

// connect opens the connection to the current leader if there is none
// (see connLocked).
func (c *forwardClient) connect() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, id := c.n.raft.LeaderWithID(); id != "" && id != c.n.self {
		c.connLocked()
	}
}

// linkLost handles the leader's end of the forwarding connection going
// away: connLocked dials the leader again, and suspects it if that fails.
func (c *forwardClient) linkLost() {
	c.connect()
}

// AwaitLeader waits until this node knows a leader (see HasLeader) or ctx
// ends, and reports whether it knows one.
func (n *Node) AwaitLeader(ctx context.Context) bool {
	return awaitSignal(ctx, n.leaderKnown, n.HasLeader)
}

// AwaitZxid waits until this node has applied the entry of zxid (or a
// later one) or ctx ends, and reports whether it has.
func (n *Node) AwaitZxid(ctx context.Context, zxid int64) bool {
	return awaitSignal(ctx, n.fsm.applied, func() bool { return n.LastZxid() >= zxid })
}

// awaitSignal waits until done holds, rechecking whenever sig fires.
func awaitSignal(ctx context.Context, sig *appliedSignal, done func() bool) bool {
	for {
		wake := sig.wait() // before the check: a signal in between is not lost
		if done() {
			return true
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return done()
		}
	}
}
