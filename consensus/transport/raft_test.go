package transport

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// testFSM records the commands it applied.
type testFSM struct {
	mu       sync.Mutex
	applied  []string
	restores int
}

func (f *testFSM) Apply(l *raft.Log) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applied = append(f.applied, string(l.Data))
	return nil
}

func (f *testFSM) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fsmSnapshot(slices.Clone(f.applied)), nil
}

func (f *testFSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applied = nil
	if len(b) > 0 {
		f.applied = strings.Split(string(b), "\n")
	}
	f.restores++
	return nil
}

func (f *testFSM) state() ([]string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.applied), f.restores
}

type fsmSnapshot []string

func (s fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := io.WriteString(sink, strings.Join(s, "\n")); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (fsmSnapshot) Release() {}

// injecting is a node's transport with a hand on its consumer: armed, it
// rejects the next AppendEntries that carries entries itself, as a
// follower whose log doesn't match would.
type injecting struct {
	*Transport
	ch       chan raft.RPC
	armed    atomic.Bool
	injected atomic.Int64
	stop     chan struct{}
	done     chan struct{}
}

func (w *injecting) Consumer() <-chan raft.RPC { return w.ch }

func (w *injecting) run() {
	defer close(w.done)
	for {
		var rpc raft.RPC
		select {
		case rpc = <-w.Transport.Consumer():
		case <-w.stop:
			return
		}
		if ae, ok := rpc.Command.(*raft.AppendEntriesRequest); ok && len(ae.Entries) > 0 && w.armed.CompareAndSwap(true, false) {
			w.injected.Add(1)
			rpc.Respond(&raft.AppendEntriesResponse{Term: ae.Term, LastLog: ae.PrevLogEntry, NoRetryBackoff: true}, nil)
			continue
		}
		select {
		case w.ch <- rpc:
		case <-w.stop:
			return
		}
	}
}

type node struct {
	id     raft.ServerID
	addr   raft.ServerAddress
	trans  *injecting
	fsm    *testFSM
	logs   *raft.InmemStore
	stable *raft.InmemStore
	snaps  *raft.InmemSnapshotStore
	raft   *raft.Raft
}

type cluster struct {
	t     *testing.T
	nodes []*node
	logs  *logBuffer
	tcfg  Config
	rcfg  func(*raft.Config)
}

// newCluster starts n nodes over this transport on loopback and waits
// for a leader.
func newCluster(t *testing.T, n int, tcfg Config, rcfg func(*raft.Config)) *cluster {
	c := &cluster{t: t, logs: new(logBuffer), tcfg: tcfg, rcfg: rcfg}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("raft logs:\n%s", c.logs.String())
		}
	})
	var servers []raft.Server
	for i := range n {
		s := listenStream(t, "")
		nd := &node{
			id:     raft.ServerID(fmt.Sprint("n", i)),
			addr:   raft.ServerAddress(s.Addr().String()),
			logs:   raft.NewInmemStore(),
			stable: raft.NewInmemStore(),
			snaps:  raft.NewInmemSnapshotStore(),
		}
		s.Close()
		c.nodes = append(c.nodes, nd)
		servers = append(servers, raft.Server{ID: nd.id, Address: nd.addr})
	}
	for _, nd := range c.nodes {
		if err := raft.BootstrapCluster(c.config(nd), nd.logs, nd.stable, nd.snaps, nil, raft.Configuration{Servers: servers}); err != nil {
			t.Fatal(err)
		}
		c.start(nd)
	}
	t.Cleanup(func() {
		for _, nd := range c.nodes {
			if nd.raft != nil {
				c.stop(nd)
			}
		}
	})
	c.leader()
	return c
}

func (c *cluster) config(nd *node) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = nd.id
	rc.HeartbeatTimeout = 300 * time.Millisecond
	rc.ElectionTimeout = 300 * time.Millisecond
	rc.LeaderLeaseTimeout = 150 * time.Millisecond
	rc.CommitTimeout = 5 * time.Millisecond
	rc.SnapshotThreshold = 1 << 40
	rc.SnapshotInterval = time.Hour
	rc.Logger = hclog.New(&hclog.LoggerOptions{Name: string(nd.id), Output: c.logs, Level: hclog.Info})
	if c.rcfg != nil {
		c.rcfg(rc)
	}
	return rc
}

// start (re)starts a node on its address, with its stores and a new FSM.
func (c *cluster) start(nd *node) {
	cfg := c.tcfg
	cfg.Logger = hclog.New(&hclog.LoggerOptions{Name: string(nd.id) + "-transport", Output: c.logs, Level: hclog.Info})
	tr := New(listenStream(c.t, string(nd.addr)), cfg)
	nd.trans = &injecting{Transport: tr, ch: make(chan raft.RPC), stop: make(chan struct{}), done: make(chan struct{})}
	go nd.trans.run()
	nd.fsm = new(testFSM)
	r, err := raft.NewRaft(c.config(nd), nd.fsm, nd.logs, nd.stable, nd.snaps, nd.trans)
	if err != nil {
		c.t.Fatal(err)
	}
	nd.raft = r
}

// stop shuts a node down, which closes its transport; it must return
// within a few seconds.
func (c *cluster) stop(nd *node) {
	within(c.t, 5*time.Second, "Shutdown of "+string(nd.id), func() {
		if err := nd.raft.Shutdown().Error(); err != nil {
			c.t.Error(err)
		}
	})
	close(nd.trans.stop)
	<-nd.trans.done
	nd.trans.Close()
	nd.raft = nil
}

func (c *cluster) leader() *node {
	var l *node
	waitFor(c.t, 20*time.Second, "a leader", func() bool {
		for _, nd := range c.nodes {
			if nd.raft != nil && nd.raft.State() == raft.Leader {
				l = nd
				return true
			}
		}
		return false
	})
	return l
}

// apply applies commands named prefix0 .. prefix(n-1) on the leader,
// retrying on a new leader if leadership moves.
func (c *cluster) apply(prefix string, n int) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; i < n; {
		l := c.leader()
		futs := make([]raft.ApplyFuture, 0, n-i)
		for j := i; j < n; j++ {
			futs = append(futs, l.raft.Apply([]byte(fmt.Sprint(prefix, j)), 5*time.Second))
		}
		for _, f := range futs {
			if f.Error() != nil {
				break
			}
			i++
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("applied %d of %d", i, n)
		}
	}
}

// converged waits until every running node's FSM holds want... in order.
func (c *cluster) converged(want []string) {
	c.t.Helper()
	for _, nd := range c.nodes {
		if nd.raft == nil {
			continue
		}
		waitFor(c.t, 30*time.Second, string(nd.id)+"'s FSM to catch up", func() bool {
			got, _ := nd.fsm.state()
			return len(got) >= len(want)
		})
		if got, _ := nd.fsm.state(); !slices.Equal(got, want) {
			c.t.Fatalf("%s applied %d commands, not the %d expected in order", nd.id, len(got), len(want))
		}
	}
}

func names(prefix string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprint(prefix, i)
	}
	return s
}

func TestRaftCluster(t *testing.T) {
	c := newCluster(t, 3, Config{MaxInFlight: 4}, nil)
	c.apply("a", 2000)
	want := names("a", 2000)
	c.converged(want)
	l := c.leader()
	if l.trans.stats.pipelined.Load() == 0 {
		t.Fatal("the leader never pipelined")
	}

	// A follower rejects AppendEntries while the leader pipelines to it:
	// the leader's pipeline stops, replication falls back and recovers.
	var f *node
	for _, nd := range c.nodes {
		if nd != l {
			f = nd
		}
	}
	for attempt := 0; l.trans.stats.pipelineRejected.Load() == 0; attempt++ {
		if attempt == 20 {
			t.Fatal("no rejection landed on a pipeline")
		}
		f.trans.armed.Store(true)
		c.apply(fmt.Sprint("r", attempt, "-"), 200)
		want = append(want, names(fmt.Sprint("r", attempt, "-"), 200)...)
	}
	c.converged(want)
	t.Logf("injected %d rejections; the leader stopped %d pipelines on one", f.trans.injected.Load(), l.trans.stats.pipelineRejected.Load())
	// Raft's sender, racing the rejection, was not handed an error (it
	// would log "failed to pipeline appendEntries").
	if c.logs.contains(ErrPipelineRejected.Error()) {
		t.Error("Raft's sender got an error from the rejected pipeline")
	}

	// A follower stops and misses entries, and leadership moves (by
	// TimeoutNow, and a RequestVote with LeadershipTransfer set): the new
	// leader starts replicating to it from its own last entry, which the
	// restarted follower lacks, so AppendEntries is rejected until the
	// leader backs up to the follower's last entry.
	c.stop(f)
	c.apply("b", 300)
	want = append(want, names("b", 300)...)
	if err := l.raft.LeadershipTransfer().Error(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "a new leader", func() bool { return c.leader() != l })
	c.apply("c", 100)
	want = append(want, names("c", 100)...)
	c.start(f)
	c.converged(want)
	if f.trans.stats.rejectedServed.Load() == 0 {
		t.Error("the restarted follower rejected no AppendEntries")
	}
}

// TestRaftConflictingLog partitions the leader, which keeps appending
// entries no one else has; the others elect a new leader and commit
// other entries at those indexes. Healed, the old leader's log conflicts:
// its AppendEntries are rejected until the new leader finds where the
// logs agree and overwrites the rest.
func TestRaftConflictingLog(t *testing.T) {
	c := newCluster(t, 3, Config{MaxInFlight: 4}, nil)
	c.apply("a", 200)
	want := names("a", 200)
	c.converged(want)

	old := c.leader()
	stream := old.trans.stream.(*testStream)
	stream.partition(true)
	lost := make([]raft.ApplyFuture, 20)
	for i := range lost {
		lost[i] = old.raft.Apply([]byte(fmt.Sprint("lost", i)), time.Second)
	}
	var next *node
	waitFor(t, 20*time.Second, "a leader among the others", func() bool {
		for _, nd := range c.nodes {
			if nd != old && nd.raft.State() == raft.Leader {
				next = nd
				return true
			}
		}
		return false
	})
	for i, f := range lost {
		if f.Error() == nil {
			t.Fatalf("entry %d committed on a partitioned leader", i)
		}
	}
	// The new leader starts replicating to the old one at the entry after
	// its own last at election, which the old one has (the last
	// committed). Move leadership once more so the next leader starts
	// past the conflicting entries: it must be rejected back to them.
	c.apply("b", 300)
	want = append(want, names("b", 300)...)
	if err := next.raft.LeadershipTransfer().Error(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "another leader", func() bool {
		l := c.leader()
		return l != next && l != old
	})
	c.apply("c", 100)
	want = append(want, names("c", 100)...)
	rejected := old.trans.stats.rejectedServed.Load()
	stream.partition(false)
	c.converged(want)
	if old.trans.stats.rejectedServed.Load() == rejected {
		t.Error("the old leader rejected no AppendEntries")
	}
	if !c.logs.contains(string(old.id) + ": clearing log suffix") {
		t.Error("the old leader's conflicting entries were not cleared")
	}
}

// TestRaftInstallSnapshot: a follower that missed entries the leader has
// compacted away gets them by InstallSnapshot.
func TestRaftInstallSnapshot(t *testing.T) {
	c := newCluster(t, 3, Config{}, func(rc *raft.Config) { rc.TrailingLogs = 10 })
	c.apply("a", 100)
	want := names("a", 100)
	c.converged(want)

	l := c.leader()
	var f *node
	for _, nd := range c.nodes {
		if nd != l {
			f = nd
		}
	}
	c.stop(f)
	big := strings.Repeat("x", 1000)
	c.apply(big, 500)
	want = append(want, names(big, 500)...)
	l = c.leader()
	if err := l.raft.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	c.apply("c", 20)
	want = append(want, names("c", 20)...)
	c.start(f)
	c.converged(want)
	if _, restores := f.fsm.state(); restores == 0 {
		t.Fatal("the follower caught up without restoring a snapshot")
	}
	if f.trans.stats.snapshotsServed.Load() == 0 {
		t.Fatal("no InstallSnapshot reached the follower")
	}
	if !bytes.Contains([]byte(c.logs.String()), []byte("Installed remote snapshot")) {
		t.Log("raft did not log the snapshot install")
	}
}
