package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/internal/testports"
	"github.com/zkraft/zkraft/server"
)

// target is a server (or ensemble) under load.
type target struct {
	label string   // A or B
	name  string   // the spec: a built-in name or the address list
	desc  string   // what it is
	addrs []string // client addresses
	// adminAddrs are the servers' AdminServer host:port in the order of
	// addrs; nil unless -watchadmin turned the AdminServer on.
	adminAddrs []string
	// pids are the server processes' ids, for memory figures; nil when
	// the servers run in zkbench's own process or were started by others.
	pids []int
	stop func() error
	// members kills and restarts single servers (-kills); nil unless
	// zkbench runs the ensemble's servers as processes (lockkill.go).
	members memberControl
	// check, when set, runs before every round and fails it when the
	// target is no longer set up as it says (placement.go: the leader
	// must be the server whose dataDir is on disk).
	check func() error
}

// builtinNames are the targets zkbench starts itself: zkraft in this
// process (standalone and a three-node ensemble), and zkserver as processes
// of its own and Apache ZooKeeper JVMs (internal/realzk), each standalone,
// as a three- and a five-node ensemble and as three voters with two
// observers (ensembleShapes).
var builtinNames = []string{"zkraft", "zkraft3", "zkserver", "zkserver3", "zkserver5", "zkserver3o2",
	"zookeeper", "zookeeper3", "zookeeper5", "zookeeper3o2",
	"zkserver3slow", "zkserver3tmpfs", "zookeeper3slow", "zookeeper3tmpfs"}

// shape is the make-up of an ensemble: voting servers and observers.
type shape struct{ voters, observers int }

func (s shape) size() int { return s.voters + s.observers }

// ensembleShapes are the ensemble suffixes of the zkserver and zookeeper
// targets: zkserver3 is three voters, zookeeper3o2 three voters and two
// observers.
var ensembleShapes = map[string]shape{"3": {3, 0}, "5": {5, 0}, "3o2": {3, 2}}

// builtinShape splits a zkserver or zookeeper target into its kind and
// shape: "zkserver" standalone is {1, 0}. ok is false for other specs.
func builtinShape(spec string) (kind string, sh shape, ok bool) {
	kind, sh, _, ok = builtinTarget(spec)
	return kind, sh, ok
}

// builtinTarget is builtinShape that also returns where the ensemble's
// members keep their data: an ensemble name may end in a placement suffix
// (placement.go), zkserver3slow or zookeeper5tmpfs.
func builtinTarget(spec string) (kind string, sh shape, pl placement, ok bool) {
	for _, k := range []string{"zkserver", "zookeeper"} {
		rest, found := strings.CutPrefix(spec, k)
		if !found {
			continue
		}
		if rest == "" {
			return k, shape{1, 0}, placeDefault, true
		}
		for suffix, p := range placementSuffixes {
			if r, cut := strings.CutSuffix(rest, suffix); cut {
				rest, pl = r, p
				break
			}
		}
		sh, ok := ensembleShapes[rest]
		return k, sh, pl, ok
	}
	return "", shape{}, placeDefault, false
}

// builtins holds every built-in name: builtinNames and the placement
// variants of every ensemble shape (zkserver5slow, zookeeper3o2tmpfs).
var builtins = func() map[string]bool {
	m := make(map[string]bool, len(builtinNames))
	for _, n := range builtinNames {
		m[n] = true
	}
	for _, k := range []string{"zkserver", "zookeeper"} {
		for sh := range ensembleShapes {
			for suffix := range placementSuffixes {
				m[k+sh+suffix] = true
			}
		}
	}
	return m
}()

// leaderWait bounds how long an ensemble may take to elect a leader.
const leaderWait = 60 * time.Second

// maxTargets bounds -compare's targets: A, B, C, D.
const maxTargets = 4

// splitCompare splits -compare into its targets, A, B and up to two more:
// at ";" when there is one (address lists contain commas), else at the
// commas.
func splitCompare(s string) ([]string, error) {
	sep := ","
	if strings.Contains(s, ";") {
		sep = ";"
	}
	parts := strings.Split(s, sep)
	bad := len(parts) < 2 || len(parts) > maxTargets
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		bad = bad || parts[i] == ""
	}
	if bad {
		return nil, fmt.Errorf("-compare %q: want A,B or A,B,C (or A;B;C when a target is an address list with commas), at most %d targets", s, maxTargets)
	}
	return parts, nil
}

// checkSpec accepts a built-in name or host:port[,host:port...].
func checkSpec(spec string) error {
	if builtins[spec] {
		return nil
	}
	for _, a := range strings.Split(spec, ",") {
		if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
			return fmt.Errorf("target %q: want host:port[,host:port...] or one of %s", spec, strings.Join(builtinNames, ", "))
		}
	}
	return nil
}

// checkAvailable fails, with the reason, for a target that cannot run here.
func checkAvailable(spec string, o *options) error {
	kind, _, pl, ok := builtinTarget(spec)
	if ok && pl != placeDefault {
		if _, err := placementDirs(pl, o); err != nil {
			return fmt.Errorf("target %s: %w", spec, err)
		}
	}
	switch {
	case !ok:
	case kind == "zookeeper":
		if ok, reason := realzk.Available(); !ok {
			return fmt.Errorf("target %s: %s", spec, reason)
		}
	case kind == "zkserver":
		if _, err := findZkserver(o.zkserver); err != nil {
			return fmt.Errorf("target %s: %w", spec, err)
		}
	}
	return nil
}

// startTarget starts a built-in target, or names an address list; it
// records the target's AdminServer addresses for adminAddrsOf.
func startTarget(ctx context.Context, spec string, o *options) (*target, error) {
	t, err := startSpec(ctx, spec, o)
	if err == nil {
		rememberAdmin(t)
	}
	return t, err
}

// adminOf maps the client address of a server zkbench started with its
// AdminServer on to the AdminServer's address, so that an op handed only
// the client addresses (-op watches) can find it.
var adminOf sync.Map

func rememberAdmin(t *target) {
	for i, a := range t.adminAddrs {
		if a != "" && i < len(t.addrs) {
			adminOf.Store(t.addrs[i], a)
		}
	}
}

// adminAddrsOf returns the AdminServer address of every client address,
// or false when one of them has none.
func adminAddrsOf(addrs []string) ([]string, bool) {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		v, ok := adminOf.Load(a)
		if !ok {
			return nil, false
		}
		out[i] = v.(string)
	}
	return out, true
}

// startSpec is startTarget without the bookkeeping.
func startSpec(ctx context.Context, spec string, o *options) (*target, error) {
	fs := "forceSync=" + o.forceSync.String()
	switch spec {
	case "zkraft":
		return startZkraft(ctx, o.cfg)
	case "zkraft3":
		return startZkraft3(ctx, bool(o.forceSync), fs, o.cfg)
	case "zookeeper":
		return startZooKeeper(o, fs)
	}
	if kind, sh, pl, ok := builtinTarget(spec); ok {
		if kind == "zkserver" {
			return startZkserver(ctx, o, sh, pl)
		}
		return startZooKeeperEnsemble(spec, sh, pl, o)
	}
	return &target{name: spec, desc: "external", addrs: strings.Split(spec, ","), stop: func() error { return nil }}, nil
}

// startZkraft starts an in-memory standalone zkraft server in this process.
func startZkraft(ctx context.Context, extra cfgFlag) (*target, error) {
	cfg := server.DefaultConfig()
	cfg.ClientPort = 0
	cfg.MaxClientCnxns = 0
	cfg, err := extra.apply(cfg)
	if err != nil {
		return nil, err
	}
	s, err := startServer(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("start zkraft: %w", err)
	}
	return &target{name: "zkraft", desc: "zkraft standalone, in memory, in-process",
		addrs: []string{s.Addr()}, stop: s.Close}, nil
}

func startServer(ctx context.Context, cfg server.Config) (*server.Server, error) {
	s, err := server.New(cfg)
	if err != nil {
		return nil, err
	}
	if err := s.Start(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// startZkraft3 starts a durable three-node zkraft ensemble in this process,
// its data in a temporary directory, and waits until it has a leader.
func startZkraft3(ctx context.Context, forceSync bool, fs string, extra cfgFlag) (*target, error) {
	dir, err := os.MkdirTemp("", "zkbench-zkraft3-")
	if err != nil {
		return nil, err
	}
	t := &target{name: "zkraft3", desc: "zkraft three-node ensemble, durable, " + fs + ", in-process"}
	var servers []*server.Server
	t.stop = func() error {
		for _, s := range servers {
			s.Close()
		}
		return os.RemoveAll(dir)
	}
	lines, err := peerLines(3)
	if err != nil {
		t.stop()
		return nil, err
	}
	for id := int64(1); id <= 3; id++ {
		cfg := server.DefaultConfig()
		cfg.ClientPort, cfg.MaxClientCnxns, cfg.ServerID, cfg.Servers = 0, 0, id, lines
		cfg.DataDir, cfg.ForceSync = filepath.Join(dir, strconv.FormatInt(id, 10)), forceSync
		cfg, err := extra.apply(cfg)
		if err != nil {
			t.stop()
			return nil, err
		}
		s, err := startServer(ctx, cfg)
		if err != nil {
			t.stop()
			return nil, fmt.Errorf("start zkraft3 server %d: %w", id, err)
		}
		servers = append(servers, s)
		t.addrs = append(t.addrs, s.Addr())
	}
	if err := waitForLeader(ctx, servers); err != nil {
		t.stop()
		return nil, err
	}
	return t, nil
}

// peerLines returns n server.N lines with free peer and election ports.
func peerLines(n int) (map[int64]string, error) {
	lines := make(map[int64]string, n)
	for id := int64(1); id <= int64(n); id++ {
		p1, err1 := freePort()
		p2, err2 := freePort()
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		lines[id] = fmt.Sprintf("127.0.0.1:%d:%d", p1, p2)
	}
	return lines, nil
}

// waitForLeader polls until one server leads and the others follow, all
// of them serving (caught up in the leader's epoch, so srvr answers with
// their Mode).
func waitForLeader(ctx context.Context, servers []*server.Server) error {
	ctx, cancel := context.WithTimeout(ctx, leaderWait)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		leaders, followers := 0, 0
		for _, s := range servers {
			if !s.Serving() {
				continue
			}
			switch s.Role() {
			case "leader":
				leaders++
			case "follower":
				followers++
			}
		}
		if leaders == 1 && followers == len(servers)-1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no leader elected: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// freePort returns a loopback port for a server that must know it before
// it starts. It comes from below the kernel's ephemeral range, so no
// outgoing connection takes it meanwhile, and from a block of ports this
// process claimed, so no other process using package testports (the tests
// of a parallel `go test` run) hands it out too.
func freePort() (int, error) { return testports.Pick() }

// startZooKeeper starts Apache ZooKeeper standalone (a JVM).
func startZooKeeper(o *options, fs string) (*target, error) {
	s, err := realzk.Start("", o.zooKeeperOptions())
	if err != nil {
		return nil, fmt.Errorf("start zookeeper: %w", err)
	}
	t := &target{name: "zookeeper", desc: "Apache ZooKeeper standalone, " + fs,
		addrs: []string{s.Addr()}, pids: []int{s.Pid()}, stop: s.Stop}
	if a := s.AdminAddr(); a != "" {
		t.adminAddrs = []string{a}
	}
	return t, nil
}

// startZooKeeperEnsemble starts an Apache ZooKeeper ensemble of sh's
// voters and observers (one JVM each) and waits until it has a leader and
// the others follow or observe; with a placement, in the directories it
// names, moving the followers' data to tmpfs (placement.go).
func startZooKeeperEnsemble(name string, sh shape, pl placement, o *options) (*target, error) {
	fs := "forceSync=" + o.forceSync.String()
	opts := o.zooKeeperOptions()
	if pl != placeDefault {
		return startZooKeeperPlaced(name, sh, pl, o, opts)
	}
	e, err := realzk.StartEnsembleObservers("", sh.voters, sh.observers, opts)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	t := &target{name: name, desc: "Apache ZooKeeper " + shapeDesc(sh) + ", " + fs,
		addrs: e.Addrs(), pids: e.Pids(), stop: e.Stop, members: zkEnsembleMembers{e, opts}}
	if opts.AdminServer {
		t.adminAddrs = e.AdminAddrs()
	}
	return t, nil
}

// zooKeeperOptions are the realzk options of every ZooKeeper server a
// built-in target starts: -forcesync, -cfg, -zkheap and -watchadmin (the
// AdminServer on a free loopback port).
func (o *options) zooKeeperOptions() realzk.Options {
	return realzk.Options{ForceSync: bool(o.forceSync), ExtraConfig: o.cfg.zooKeeperExtra(), Heap: o.zkHeap,
		AdminServer: o.watches.admin}
}

// shapeDesc describes an ensemble's shape in words.
func shapeDesc(sh shape) string {
	words := map[int]string{2: "two", 3: "three", 4: "four", 5: "five", 7: "seven"}
	n := func(k int) string {
		if w, ok := words[k]; ok {
			return w
		}
		return strconv.Itoa(k)
	}
	if sh.observers == 0 {
		return n(sh.voters) + "-node ensemble"
	}
	return fmt.Sprintf("ensemble of %s voters and %s observers", n(sh.voters), n(sh.observers))
}
