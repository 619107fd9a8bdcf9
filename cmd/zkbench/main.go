package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/zkraft/zkraft/internal/buildinfo"
	"github.com/zkraft/zkraft/internal/realzk"
)

// options holds the parsed and validated flags.
type options struct {
	servers        string
	tls            tlsFlags
	compare        string
	opName         string
	op             opKind
	mix            int
	sessions       int
	inflight       int
	size           int
	keys           int
	n              int // count of the scale ops (fill, sessions, watchers)
	warmup         time.Duration
	duration       time.Duration
	rounds         int
	forceSync      yesNo
	zkserver       string
	diskDir        string // the slow-leader targets' leader data (placement.go); "" for the temp dir
	tmpfsDir       string // the placement targets' data on tmpfs
	sessionTimeout time.Duration
	cfg            cfgFlag // -cfg key=value lines for every built-in target (cfgflag.go)
	zkHeap         string  // -zkheap: the ZooKeeper JVMs' -Xmx
	keepLogs       string  // -keep-logs: where the zkserver targets' logs are copied at their stop
	sessionClient  string  // -op sessions: gozk or raw (sessionsclient.go)
	json           bool
	version        bool   // -version: print the version and exit
	cpuProfile     string // file for a CPU profile of zkbench itself
	role           string // any, leader, follower or observer: the servers sessions use
	kills          int    // -op lock: leader kills in the window (lockkill.go)
	lockClients    string // -op lock: go, curator or both
	lockClientList []string
	leaderWatch    bool   // poll srvr during each round and report leader changes
	sessionList    string // -sessions, a comma list
	// plan is the workloads to run, from the -op, -sessions and -role
	// lists (plan.go); op, opName, sessions and role hold the current one.
	plan []workloadSpec
	// specs are the targets to run: -servers, or the two of -compare.
	specs []string

	watches watchFlags   // -op watches (watches.go)
	bigtree bigtreeFlags // -op bigtree (bigtree.go)
	conns   connsFlags   // -op conns (conns.go)
}

// maxSize keeps a payload and its request header under ZooKeeper's
// default jute.maxbuffer (1 MiB - 1).
const maxSize = 1000000

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := realMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// realMain runs zkbench and returns its exit code: 0 on success, 1 when a
// run fails, 2 on a usage error.
func realMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil && o.version {
		fmt.Fprintln(stdout, "zkbench", buildinfo.Line())
		return 0
	}
	if err != nil {
		return 2
	}
	if o.cpuProfile != "" {
		stopProfile, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "zkbench:", err)
			return 1
		}
		defer stopProfile()
	}
	if err := execute(ctx, o, stdout); err != nil {
		fmt.Fprintln(stderr, "zkbench:", err)
		return 1
	}
	return 0
}

// parseFlags parses and validates args; on a usage error it has already
// printed the message and the usage to stderr.
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("zkbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.servers, "servers", "127.0.0.1:2181", "target: `host:port[,host:port...]` or a built-in target (zkraft, zkraft3, zkserver, zkserver3, zkserver5, zkserver3o2, zookeeper, zookeeper3, zookeeper5, zookeeper3o2; an ensemble name ending in slow or tmpfs places its servers' data: zkserver3slow, zookeeper3tmpfs)")
	fs.StringVar(&o.compare, "compare", "", "A/B mode: `A,B` or A,B,C (or A;B;C when a target is an address list with commas), each as -servers; rounds alternate between them, ratios are A/B and A/C")
	fs.StringVar(&o.opName, "op", "get", "operation (or a comma list of the load ops): get, set, create, create-delete, mix, connect, a scale op: fill, sessions, watchers, start (process launch to first write), or lock (lock handoff, lock.go)")
	fs.IntVar(&o.n, "n", 0, "znodes (fill, default 200000), sessions (sessions, default 10000) or watchers (watchers, default 10000)")
	fs.IntVar(&o.mix, "mix", 90, "with -op mix: percentage of gets (the rest are sets)")
	fs.StringVar(&o.sessionList, "sessions", "8", "number of sessions (connections), or a comma list")
	fs.IntVar(&o.inflight, "inflight", 1, "requests in flight per session (goroutines issuing synchronous calls)")
	fs.IntVar(&o.size, "size", 100, "payload `bytes` of set and create, and of the keys get reads")
	fs.IntVar(&o.keys, "keys", 1000, "number of znodes get, set, mix and connect pick from at random")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "time the workload runs before measuring, in every round")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "measured time of each round")
	fs.IntVar(&o.rounds, "rounds", 0, "rounds per target, alternating A, B, A, B... (default 3 with -compare, else 1; 1 for the scale ops, 10 for start)")
	fs.Var(&o.forceSync, "forcesync", "for the durable built-in targets (zkraft3, the zkserver ensembles, the zookeeper ones): fsync each write: yes or no (default no)")
	fs.StringVar(&o.zkserver, "zkserver", "", "zkserver binary `path` for the zkserver targets (default: zkserver next to zkbench's executable, else on PATH)")
	fs.StringVar(&o.diskDir, "diskdir", "", "`dir` on a real disk (not tmpfs) for the leader's data of the slow-leader targets, zkserver3slow and zookeeper3slow (default: the temp directory)")
	fs.StringVar(&o.tmpfsDir, "tmpfsdir", defaultTmpfsDir, "`dir` on tmpfs for the data of the slow-leader targets' other servers and of zkserver3tmpfs and zookeeper3tmpfs")
	fs.Var(&o.cfg, "cfg", "`key=value`: a zoo.cfg line for every built-in target zkbench starts, zkraft's (zkraft, zkraft3, the zkserver targets) and ZooKeeper's; repeatable, a later value of a key wins and overrides zkbench's own (e.g. -cfg localSessionsEnabled=true)")
	fs.DurationVar(&o.sessionTimeout, "session-timeout", 10*time.Second, "session timeout asked for, also the time to wait for a session")
	fs.BoolVar(&o.json, "json", false, "print one JSON document instead of text")
	fs.BoolVar(&o.version, "version", false, "print zkbench's version, then exit")
	fs.StringVar(&o.role, "role", "any", "connect sessions only to the ensemble's `leader`, its followers (follower) or observers (observer), by srvr's Mode each round; any: all servers, in turn (or a comma list)")
	fs.IntVar(&o.kills, "kills", 0, "with -op lock on zkserver3 or zookeeper3: kill (SIGKILL) and restart the leader this many times, evenly spread over the window; every client is then given all servers")
	fs.StringVar(&o.lockClients, "lockclients", "go,curator", "with -op lock: the lock clients to run, `go` (recipes.Lock), curator (Apache Curator's InterProcessMutex, needs a JDK and libcurator-*-java) or both")
	fs.BoolVar(&o.leaderWatch, "leaderwatch", false, "poll every server's srvr during each round (warmup included) and report leader changes and elections (zxid epoch increases); -op lock always does")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of zkbench itself (the load generator, not the server) to `file`")
	fs.StringVar(&o.tls.ca, "tls-ca", "", "speak TLS to the secure client port, trusting the PEM CA certificates in `file`")
	fs.StringVar(&o.tls.cert, "tls-cert", "", "with -tls-ca: the PEM client certificate `file` to present")
	fs.StringVar(&o.tls.key, "tls-key", "", "with -tls-ca: the PEM private key `file` of -tls-cert")
	fs.StringVar(&o.keepLogs, "keep-logs", "", "copy each zkserver target's server logs into `dir` when it stops (a failed run's too), as NAME-ATTEMPT-SERVER.log; by default they go with the target's directory")
	fs.StringVar(&o.zkHeap, "zkheap", realzk.DefaultHeap, "maximum heap (java -Xmx) of each ZooKeeper server the built-in zookeeper targets start: raise it for large trees (ZooKeeper keeps about 460 B of live heap per 100-byte znode, docs/performance.md)")
	fs.StringVar(&o.sessionClient, "sessionclient", sessionClientGozk, "-op sessions: the client that opens the sessions, gozk (go-zookeeper) or raw (the bare handshake, rawsession.go: the server's cost without go-zookeeper's)")
	o.watches.register(fs)
	o.bigtree.register(fs)
	o.conns.register(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	d, err := o.tls.dialer()
	if err != nil {
		fmt.Fprintln(stderr, "zkbench:", err)
		return nil, err
	}
	sessionDialer = d
	if err := o.validate(fs); err != nil {
		fmt.Fprintln(stderr, "zkbench:", err)
		fs.Usage()
		return nil, err
	}
	return o, nil
}

const usageText = `zkbench generates load on a ZooKeeper-compatible server and reports
throughput and latency percentiles.

Usage:
  zkbench [flags]                      run against -servers
  zkbench -compare A,B [flags]         alternate rounds on A and B, report the ratios
  zkbench -compare 'A;B;C' [flags]     alternate rounds on A, B and C, report A/B and A/C

Flags:
`

// validate checks the flags and fills in the derived fields.
func (o *options) validate(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := o.parsePlan(o.sessionList); err != nil {
		return err
	}
	checks := []struct {
		bad bool
		msg string
	}{
		{o.mix < 0 || o.mix > 100, fmt.Sprintf("-mix %d must be between 0 and 100", o.mix)},
		{o.inflight < 1, fmt.Sprintf("-inflight %d must be at least 1", o.inflight)},
		{o.size < 0 || o.size > maxSize, fmt.Sprintf("-size %d must be between 0 and %d", o.size, maxSize)},
		{o.keys < 1, fmt.Sprintf("-keys %d must be at least 1", o.keys)},
		{o.warmup < 0, fmt.Sprintf("-warmup %v must not be negative", o.warmup)},
		{o.duration <= 0, fmt.Sprintf("-duration %v must be positive", o.duration)},
		{o.rounds < 0, fmt.Sprintf("-rounds %d must not be negative", o.rounds)},
		{o.sessionTimeout <= 0, fmt.Sprintf("-session-timeout %v must be positive", o.sessionTimeout)},
	}
	for _, c := range checks {
		if c.bad {
			return errors.New(c.msg)
		}
	}
	if err := o.lockDefaults(); err != nil {
		return err
	}
	if err := o.scaleDefaults(fs); err != nil {
		return err
	}
	o.startDefaults()
	if err := o.resolveTargets(fs); err != nil {
		return err
	}
	return o.checkStartTargets()
}

// resolveTargets sets specs from -servers or -compare, and the default
// number of rounds.
func (o *options) resolveTargets(fs *flag.FlagSet) error {
	serversSet := false
	fs.Visit(func(f *flag.Flag) { serversSet = serversSet || f.Name == "servers" })
	defaultRounds := 1
	if o.compare != "" {
		if serversSet {
			return errors.New("-servers and -compare exclude each other")
		}
		specs, err := splitCompare(o.compare)
		if err != nil {
			return err
		}
		o.specs = specs
		defaultRounds = 3
	} else {
		o.specs = []string{o.servers}
	}
	for _, s := range o.specs {
		if err := checkSpec(s); err != nil {
			return err
		}
	}
	if o.rounds == 0 {
		o.rounds = defaultRounds
	}
	return nil
}

// yesNo is a boolean flag that also takes ZooKeeper's yes and no.
type yesNo bool

func (b *yesNo) String() string {
	if b != nil && *b {
		return "yes"
	}
	return "no"
}

func (b *yesNo) Set(s string) error {
	switch s {
	case "yes":
		*b = true
	case "no":
		*b = false
	default:
		v, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("want yes or no, not %q", s)
		}
		*b = yesNo(v)
	}
	return nil
}

func (b *yesNo) IsBoolFlag() bool { return true }

// startCPUProfile profiles this process into path until the returned
// function is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
