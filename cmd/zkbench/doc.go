// Command zkbench generates load on a ZooKeeper-compatible server with the
// go-zookeeper client and reports throughput (ops/s), latency (mean, p50,
// p99, p99.9, max) and the error count of every run.
//
// Usage:
//
//	zkbench [flags]                 load -servers (default 127.0.0.1:2181)
//	zkbench -compare A,B [flags]    A/B comparison
//	zkbench -compare A,B,C [flags]  A against B and against C (up to four targets)
//
// A target (-servers, or A, B ... of -compare) is a client address list,
// host:port[,host:port...], or one of the targets zkbench starts itself:
//
//	zkraft        an in-memory standalone zkraft server in this process
//	zkraft3       a durable three-node zkraft ensemble in this process
//	zkserver      an in-memory standalone zkserver, as its own process
//	zkserver3     a durable three-node ensemble of zkserver processes
//	zkserver5     a durable five-node ensemble of zkserver processes
//	zkserver3o2   three durable zkserver voters and two observers
//	zookeeper     Apache ZooKeeper 3.8 standalone (a JVM)
//	zookeeper3    a three-node Apache ZooKeeper 3.8 ensemble (three JVMs)
//	zookeeper5    a five-node Apache ZooKeeper 3.8 ensemble
//	zookeeper3o2  three Apache ZooKeeper 3.8 voters and two observers
//
// and, for a write path with one slow disk, the durable ensembles with
// their servers' data placed (placement.go); the suffixes go on every
// ensemble name (zkserver5slow, zookeeper3o2tmpfs):
//
//	zkserver3slow    zkserver3 with the leader's dataDir on a real disk
//	                 (-diskdir, default the temp directory, must not be
//	                 tmpfs) and the other servers' on tmpfs (-tmpfsdir,
//	                 default /dev/shm, must be tmpfs)
//	zookeeper3slow   the same for ZooKeeper: the leader's dataDir and
//	                 transaction log on disk, the others' on tmpfs
//	zkserver3tmpfs   every server's dataDir on tmpfs: the floor the slow
//	zookeeper3tmpfs  leader is measured against
//
// A slow-leader ensemble starts with every server's data on disk; once it
// has elected a leader, zkbench moves the other servers' data to tmpfs
// one server at a time (stop, copy the dataDir, point zoo.cfg at the
// copy, start, wait until it follows again), which leaves the leader
// leading, and checks before every round that the server on disk still
// leads, failing the run if it does not:
//
//	zkbench -compare 'zkserver3slow;zkserver3tmpfs;zookeeper3slow' -op set,create -sessions 1 -role leader,follower -forcesync=yes
//
// The zkserver targets run the zkserver binary named by -zkserver, by
// default the zkserver next to zkbench's own executable, else the one on
// PATH (go build -o DIR ./cmd/zkserver ./cmd/zkbench puts both in DIR).
// The zookeeper targets need java and the Debian zookeeper package.
// When a target cannot start here, zkbench says why and exits 1. The
// ensembles use tickTime=2000 like the standalone servers, and zkbench
// waits until srvr shows a leader, the other voters following and the
// observers (the last two servers, server.N=...:observer and
// peerType=observer in their zoo.cfg) observing; clients get every
// member's address.
//
// The durable built-in targets fsync each write only with -forcesync=yes.
// All built-in targets allow unlimited connections per client address.
//
// -cfg key=value (repeatable) adds a zoo.cfg line to every built-in
// target zkbench starts: to the zoo.cfg of every zkserver process, to the
// configuration of the in-process zkraft and zkraft3 servers (parsed as
// zkserver parses a zoo.cfg; a key zkraft ignores is an error there) and
// to every ZooKeeper JVM's zoo.cfg (realzk's ExtraConfig). A later value
// of a key wins, and a -cfg key overrides zkbench's own line (-cfg
// maxClientCnxns=60). Address-list targets are not touched. For example,
// opening sessions with local sessions on both sides (standalone servers
// ignore the key):
//
//	zkbench -compare 'zkserver3;zookeeper3' -op sessions -cfg localSessionsEnabled=true
//
// The workload (-op) is one of:
//
//	get            getData of a random one of -keys znodes
//	set            setData of a random key with -size bytes
//	create         create of a persistent sequential znode with -size bytes
//	create-delete  create of a sequential znode, then its delete (one op)
//	mix            get or set of a random key, -mix percent gets
//	connect        open a session, get a random key, close the session
//
// and the scale ops, which measure one thing once per target and round
// (rounds default to 1) and report it beside the server's memory:
//
//	fill      create -n znodes (default 200000) of -size bytes under one
//	          parent, -inflight creates in flight on each of -sessions
//	          sessions (default 8 per session); time, RSS and live heap
//	          before and after, heap and RSS growth per znode
//	sessions  open -n sessions (default 10000), -inflight at a time (default
//	          16); time until all are established, time to close them, and
//	          the server's memory with them open
//	watchers  -n sessions (default 10000) each getData one znode with a
//	          watch, then another session sets it; when the watchers got
//	          their events (p50, p99, max after the set was sent), and the
//	          server's memory with the watches set
//
// and the start op, which times a server's start-up:
//
//	start     launch the target's server process, then probe it about
//	          every millisecond (dial, open a session, create an ephemeral
//	          znode) until a create succeeds; the time from just before
//	          the exec to that create's reply, per target min, median and
//	          max over -rounds rounds (default 10) and the ratio of the
//	          medians. Each round starts a fresh server and stops it again
//	          (waiting for it to exit) before the next launch. Only for
//	          zkserver and zookeeper, the single-process targets zkbench
//	          launches itself: zkbench -compare 'zkserver;zookeeper' -op start
//
// and the lock op, which measures how fast a lock changes hands:
//
//	lock      -sessions clients contend for one exclusive lock, each in a
//	          loop of acquire, empty critical section, release. Per
//	          acquisition the handoff, from the previous holder starting its
//	          release to the acquire returning (p50, p99, max, and per srvr
//	          Mode of the acquiring client's server), the critical sections
//	          completed per second, and the longest stretch in which no
//	          client completed one. -lockclients runs, one after the other
//	          on every target, zkraft's recipes.Lock on go-zookeeper (go)
//	          and Apache Curator's InterProcessMutex (curator: a JVM running
//	          curator/LockBench.java, compiled with javac at run time on the
//	          Debian libcurator-*-java jars; skipped, with the reason, when
//	          they or a JDK are missing). Each client is pinned to one of the
//	          servers -role selects, round-robin. -kills N (zkserver3 and
//	          zookeeper3 only) gives every client all servers instead and,
//	          at N evenly spaced moments of the window, kills the leader
//	          with SIGKILL and restarts it at once; each kill is reported
//	          with the time until a server reported Mode leader again.
//	          ZKBENCH_CURATOR_LOG=FILE appends the Curator and ZooKeeper
//	          client logs of every LockBench run to FILE (slf4j-simple).
//	          Every lock round polls srvr and reports leader changes and
//	          elections (increases of the zxid's epoch), as -leaderwatch
//	          does for the other ops:
//	          zkbench -compare 'zkserver3;zookeeper3' -op lock -sessions 4 -kills 2 -duration 24s
//
// and the reconnect storm ops (storm.go), on zkserver3, zkserver5,
// zookeeper3 and zookeeper5:
//
//	storm     -n sessions (default 20,000; at most the hard open-files
//	          limit less 300, which zkbench raises the soft limit to
//	          before it starts the servers), session i first on server
//	          i mod the ensemble's size but given all of them, each with
//	          the ephemeral /storm/e-i and a data watch on /storm/w-i; then
//	          the leader is killed with SIGKILL. Reported: the time from the
//	          kill until the last session that lost its connection had its
//	          session again, sessions expired or with a new id, ephemerals
//	          missing, watches that did not fire or fired twice when every
//	          /storm/w-i is then changed once, elections seen by srvr
//	          polling (1 is the failover), and the servers' peak RSS and CPU
//	          from the kill to the end of the checks; with -compare, the
//	          ratio of the times (the goal of issue 30 is at most 0.5).
//	          The leader is restarted after the checks.
//	storm-stop the same with the leader stopped (SIGSTOP) for the session
//	          timeout plus 5 s, then resumed (SIGCONT):
//	          zkbench -compare 'zkserver3;zookeeper3' -op storm -n 5000 -session-timeout 30s -inflight 32
//
// and the connections op (conns.go), on the standalone targets, started one
// at a time after the soft open-files limit is raised (to the hard limit
// when -n needs more; the servers inherit it):
//
//	conns     -n raw sessions (default 10,000; the wire package, not
//	          go-zookeeper), each with a data watch on one znode, over
//	          -conns-sources loopback source addresses (one per 25,000).
//	          Reported: connections served, the server's open files, RSS
//	          and live heap per connection, -conns-fires fires of the
//	          watch (time to every event, server and zkbench CPU per
//	          event), and another client's get/set p99 without the
//	          connections, with them idle and during each fan-out:
//	          zkbench -compare 'zkserver;zookeeper' -op conns -n 19800 -session-timeout 30s
//
// The scale ops find each target's server process by its listening port
// (loopback addresses only) and read its RSS from /proc/PID/status; the live
// heap, after a full GC, from a zkserver started with -pprof (its debug
// listener, found on its command line) or from a JVM with jcmd PID
// GC.class_histogram. For in-process targets (zkraft, zkraft3) they report
// times only and say so. For example, against zkserver as its own process:
//
//	zkserver -pprof 127.0.0.1:6060 zoo.cfg &   # zoo.cfg: clientPort=22181, maxClientCnxns=0
//	zkbench -compare '127.0.0.1:22181;zookeeper' -op fill
//
// -sessions sessions are opened and -inflight goroutines issue synchronous
// requests on each, so sessions*inflight requests are in flight (go-zookeeper
// pipelines the requests of a connection). With -op connect the
// sessions*inflight goroutines each open their own sessions.
//
// The sessions are spread over the target's servers in turn: session i
// connects to server i mod n first (and moves on to the next one only if
// that one does not serve). -role leader, follower or observer gives the
// sessions only the servers whose srvr Mode is that, asked afresh every
// round. Against an ensemble (or with -role) every round also reports its
// figures by the role of the server each session is on, asked once at the
// start of the round, as indented rows under the round's row, with an A/B
// summary per role ("by server role"; by_role and role_summary in -json);
// a server whose Mode changed during the round is named under its row.
//
// -op (load ops only), -sessions and -role also take comma lists: zkbench
// then runs every combination, for each op each number of sessions each
// role, one after another on the same targets, started once, each with its
// own report (-json: one JSON document each).
//
// Every run (one target, one round) works in a fresh bench root znode,
// /zkbench-<time>-<n>, with the keys created beforehand and everything
// deleted afterwards. The workload runs for -warmup unmeasured, then for
// -duration measured: each goroutine records the latency of its successful
// operations in its own log-linear histogram (0.8% resolution, exact mean
// and max), merged when the run ends.
//
// With -compare the runs alternate A, B, A, B, ... (A, B, C, A, B, C, ...
// with three targets) for -rounds rounds (default 3), each target with its
// own warm-up, and the summary gives per metric the median of each target
// and the median of the per-round ratios A/B (and A/C ...). -json prints
// one JSON document (latencies in microseconds) instead of the text
// report; a summary row holds the third and later targets in "more".
//
// For the targets whose server processes zkbench knows (those it starts
// as processes, zkserver and zookeeper), every round reports the servers'
// CPU time per operation in the measured window ("server CPU/op", from
// utime and stime in /proc/PID/stat) and, under the round's row, the same
// by server role (each server's srvr Mode at the start of the round) and
// split into user and system (kernel) time, summed over the servers of
// each role: "server CPU/op leader: user 210µs sys 150µs; 2 followers:
// user 160µs sys 220µs". The summary gives their medians and ratios per
// role (server_cpu_by_role per round and cpu_role_summary in -json).
//
// Examples:
//
//	zkbench -servers 127.0.0.1:2181 -op set -sessions 16 -inflight 8
//	zkbench -compare zkraft,zookeeper -op get -sessions 8 -inflight 4 -duration 3s -warmup 2s -rounds 2
//	zkbench -compare 'zkserver3;zookeeper3' -op set -forcesync=yes -sessions 8 -inflight 4
//	zkbench -compare 'zkserver3o2;zookeeper3o2' -op set,get -sessions 1 -role leader,follower,observer -forcesync=yes
//	zkbench -compare '10.0.0.1:2181,10.0.0.2:2181,10.0.0.3:2181;zkraft3' -op mix -mix 90 -json
//
// The exit code is 0 on success, 1 when a target cannot start or a run
// fails, and 2 on a usage error.
package main
