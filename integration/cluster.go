package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/internal/faultnet"
	"github.com/zkraft/zkraft/server"
)

// Cluster is an in-process ensemble started by StartCluster. Its servers
// talk Raft over real loopback TCP and keep their data in temp dirs.
type Cluster struct {
	t       testing.TB
	cfgs    []server.Config
	Servers []*server.Server // nil while stopped
	// Net carries the servers' traffic to each other; see Partition.
	Net   *FaultNetwork
	disks []*consensus.DiskFaults
	// serverOpts are WithServerOptions' extra options (nil: none).
	serverOpts func(i int) []server.Option
}

// ClusterTick is the tickTime of StartCluster's servers.
const ClusterTick = 500 * time.Millisecond

// ClusterOption configures StartCluster.
type ClusterOption func(*clusterOptions)

type clusterOptions struct {
	observers int
	electing  []int // StartCluster waits for a leader among these only
	edit      func(*server.Config)
	disks     []*consensus.DiskFaults
	opts      func(i int) []server.Option
}

// WithDiskFaults gives server i the log-disk fault switch disks[i] (see
// consensus.DiskFaults); nil entries leave a server's disk alone.
func WithDiskFaults(disks ...*consensus.DiskFaults) ClusterOption {
	return func(o *clusterOptions) { o.disks = disks }
}

// WithLeaderAmong makes StartCluster wait only for a leader among the
// given servers (0-based), for ensembles where the others cannot join.
func WithLeaderAmong(idx ...int) ClusterOption { return func(o *clusterOptions) { o.electing = idx } }

// WithObservers makes the last k servers observers (Raft non-voters).
func WithObservers(k int) ClusterOption { return func(o *clusterOptions) { o.observers = k } }

// WithServerConfig lets a test adjust every server's configuration.
func WithServerConfig(fn func(*server.Config)) ClusterOption {
	return func(o *clusterOptions) { o.edit = fn }
}

// WithServerOptions gives server i (0-based) extra options, such as a
// logger, each time it starts.
func WithServerOptions(fn func(i int) []server.Option) ClusterOption {
	return func(o *clusterOptions) { o.opts = fn }
}

// StartCluster starts an ensemble of n servers (ids 1..n) on 127.0.0.1 with
// free ports, a 500 ms tick (go-zookeeper's own ensemble tests use the same)
// and sessions of at most 4 s, and stops it when the test ends. It returns
// once a leader is elected.
//
// The tick is Raft's heartbeat, election and leader-lease timeout. With
// 100 ms, a loaded 2-core machine (four busy loops beside a -race test)
// stalled a leader or its followers long enough to re-elect in 7 of 8
// three-second runs just after start-up; with 250 ms in 3 of 18; with
// 500 ms in none of 8 (see the commit that set it).
func StartCluster(t testing.TB, n int, opts ...ClusterOption) *Cluster {
	t.Helper()
	var o clusterOptions
	for _, fn := range opts {
		fn(&o)
	}
	lines := make(map[int64]string, n)
	for i := 1; i <= n; i++ {
		lines[int64(i)] = fmt.Sprintf("127.0.0.1:%d:%d", FreePort(t), FreePort(t))
		if i > n-o.observers {
			lines[int64(i)] += ":observer"
		}
	}
	c := &Cluster{t: t, Servers: make([]*server.Server, n), Net: faultnet.New(), disks: o.disks, serverOpts: o.opts}
	dir := t.TempDir()
	for i := 1; i <= n; i++ {
		cfg := server.DefaultConfig()
		cfg.ClientPort = 0
		cfg.ServerID = int64(i)
		cfg.Servers = lines
		cfg.TickTime = ClusterTick
		cfg.MaxSessionTimeout = 4 * time.Second
		cfg.DataDir = filepath.Join(dir, fmt.Sprint(i))
		cfg.ForceSync = false
		if o.edit != nil {
			o.edit(&cfg)
		}
		c.cfgs = append(c.cfgs, cfg)
	}
	for i := range c.cfgs {
		c.start(i)
	}
	t.Cleanup(c.Close)
	if o.electing != nil {
		c.WaitForLeaderAmong(o.electing...)
	} else {
		c.WaitForLeader()
	}
	return c
}

func (c *Cluster) start(i int) {
	c.t.Helper()
	opts := []server.Option{server.WithNetwork(c.Net.For(i))}
	if i < len(c.disks) && c.disks[i] != nil {
		opts = append(opts, server.WithDiskFaults(c.disks[i]))
	}
	if c.serverOpts != nil {
		opts = append(opts, c.serverOpts(i)...)
	}
	s, err := server.New(c.cfgs[i], opts...)
	if err != nil {
		c.t.Fatalf("integration: server %d: %v", i+1, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		c.t.Fatalf("integration: start server %d: %v", i+1, err)
	}
	c.Servers[i] = s
}

// Leader returns the index of the leading server, or -1.
func (c *Cluster) Leader() int {
	for i, s := range c.Servers {
		if s != nil && s.Role() == "leader" {
			return i
		}
	}
	return -1
}

// WaitForLeader waits until one running server leads and every running
// server knows a leader, and returns the leader's index.
func (c *Cluster) WaitForLeader() int {
	c.t.Helper()
	var running []int
	for i, s := range c.Servers {
		if s != nil {
			running = append(running, i)
		}
	}
	return c.WaitForLeaderAmong(running...)
}

// WaitForLeaderAmong waits until exactly one of the given servers leads
// and the others follow it, and returns the leader's index. Use it while
// other servers are partitioned away.
func (c *Cluster) WaitForLeaderAmong(idx ...int) int {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if leader := c.agreedLeader(idx); leader >= 0 {
			return leader
		}
		time.Sleep(10 * time.Millisecond) // poll interval of the condition above
	}
	c.t.Fatalf("integration: no leader among %v within 20s", idx)
	return -1
}

// agreedLeader returns the one of idx that leads if every other follows
// it and all of them serve (each has caught up with the leader in its
// epoch, so srvr and the like answer), or -1. A follower that still names
// a leader which has just stepped down or stopped does not count: a write
// sent to it now would go to the old leader and be lost with its
// connection.
func (c *Cluster) agreedLeader(idx []int) int {
	leader, following := -1, 0
	for _, i := range idx {
		if c.Servers[i].Role() == "leader" {
			leader = i
		}
		if !c.Servers[i].Serving() {
			return -1
		}
	}
	if leader < 0 {
		return -1
	}
	id := c.cfgs[leader].ServerID
	for _, i := range idx {
		switch c.Servers[i].Role() {
		case "follower", "observer":
			if c.Servers[i].LeaderID() == id {
				following++
			}
		}
	}
	if following != len(idx)-1 {
		return -1
	}
	return leader
}

// WaitForRole waits until server i reports role (e.g. "looking" once a
// partition has cut it off, "follower" once healed).
func (c *Cluster) WaitForRole(i int, role string) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for c.Servers[i].Role() != role {
		if time.Now().After(deadline) {
			c.t.Fatalf("integration: server %d is %s, not %s, after 20s", i+1, c.Servers[i].Role(), role)
		}
		time.Sleep(10 * time.Millisecond) // poll interval of the condition above
	}
}

// Partition cuts the links between the given groups of server indexes.
func (c *Cluster) Partition(groups ...[]int) { c.Net.Partition(groups...) }

// Heal restores every link between servers.
func (c *Cluster) Heal() { c.Net.Heal() }

// Stop shuts server i down cleanly, as SIGTERM does to zkserver: a leader
// first hands its leadership to a follower, so the others go on at once.
// Its data stays on disk for Restart.
func (c *Cluster) Stop(i int) {
	if s := c.Servers[i]; s != nil {
		s.Shutdown()
		c.Servers[i] = nil
	}
}

// Kill crashes server i: its links to the other servers die at once and
// it stops without a word to anyone, so the others notice only when its
// heartbeats stop, as after a power loss or SIGKILL. Its clients lose
// their connections. Its data stays on disk for Restart.
func (c *Cluster) Kill(i int) {
	if s := c.Servers[i]; s != nil {
		c.Net.Crash(i)
		s.Close()
		c.Servers[i] = nil
	}
}

// Restart starts server i again from its data directory, stopping it
// first (with Stop) if it is running.
func (c *Cluster) Restart(i int) {
	c.t.Helper()
	c.Stop(i)
	c.Net.Revive(i)
	c.start(i)
}

// EditConfig changes server i's configuration from its next start (see
// Restart), as an operator edits a zoo.cfg before a rolling restart.
func (c *Cluster) EditConfig(i int, fn func(*server.Config)) { fn(&c.cfgs[i]) }

// Addrs returns the client addresses of the running servers.
func (c *Cluster) Addrs() []string {
	var out []string
	for _, s := range c.Servers {
		if s != nil {
			out = append(out, s.Addr())
		}
	}
	return out
}

// Connect returns a client given every running server's address, with its
// session established, closed when the test ends.
func (c *Cluster) Connect(t testing.TB, addrs ...string) (*zk.Conn, <-chan zk.Event) {
	t.Helper()
	if len(addrs) == 0 {
		addrs = c.Addrs()
	}
	return connectDescribed(t, addrs, c.describe)
}

// describe is each server's role, whether it serves, the leader it knows
// and its last zxid, for a failure's message.
func (c *Cluster) describe() string {
	var b strings.Builder
	for i, s := range c.Servers {
		if s == nil {
			fmt.Fprintf(&b, "server %d: stopped; ", i+1)
			continue
		}
		fmt.Fprintf(&b, "server %d at %s: %s, serving %t, leader %d, zxid %#x; ", i+1, s.Addr(), s.Role(), s.Serving(), s.LeaderID(), s.LastZxid())
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// Close stops every server at once, without leadership hand-overs: the
// ensemble is going away as a whole.
func (c *Cluster) Close() {
	for i, s := range c.Servers {
		if s != nil {
			s.Close()
			c.Servers[i] = nil
		}
	}
}
