// Command zkserver runs a zkraft server.
//
// Usage:
//
//	zkserver [zoo.cfg]
//	zkserver -pprof host:port [zoo.cfg]
//	zkserver verify DATADIR [DATALOGDIR]
//	zkserver verify zoo.cfg
//	zkserver export-tree -server HOST:PORT [-auth digest:USER:PASS] PATH > FILE.json
//	zkserver import-tree -server HOST:PORT [-auth digest:USER:PASS] [-to PATH] [-overwrite] [FILE.json]
//	zkserver container [zkserver [flags] | command [args...]]
//	zkserver healthcheck [zoo.cfg]
//
// container is the container image's entrypoint (docs/deploy.md): it
// writes $ZOO_CONF_DIR/zoo.cfg and $ZOO_DATA_DIR/myid from the official
// zookeeper image's ZOO_* variables unless they exist (package
// deploy/envconfig), joins a running ensemble through reconfig when
// ZKRAFT_SERVER_LINE asks it to (package deploy/join), and serves; any
// other command is executed in its place. healthcheck exits 0 when the
// server of the zoo.cfg is ready (the AdminServer's /ready, else srvr).
//
// export-tree and import-tree move a subtree between ensembles (zkraft or
// Apache ZooKeeper) as JSON over the client protocol (package treejson):
// paths, data, ACLs and modes. import-tree refuses to overwrite existing
// nodes unless -overwrite is given, and skips exported ephemerals unless
// -ephemerals persistent is. Progress goes to stderr.
//
// verify checks a stopped server's data directory offline (package
// diskcheck): every log entry's and snapshot's checksum and raft-wal's
// framing, one line per file; it exits 1 if anything is damaged, and
// refuses a directory a running server holds.
//
// With no arguments it serves an in-memory standalone server on
// 127.0.0.1:2181. With one argument, the path of a zoo.cfg, it reads the
// standard ZooKeeper keys from it, as zkServer.sh start-foreground would.
// It stops cleanly on SIGINT and SIGTERM. With server.N lines it joins a
// Raft ensemble (see docs/zab-and-raft.md); with a dataDir it is durable.
// It must hold no logic a package should own: it parses arguments, builds a
// server.Server and waits for a signal.
//
// A zoo.cfg turns on the AdminServer (package admin; docs/adminserver.md)
// on admin.serverAddress:admin.serverPort, 0.0.0.0:8080 by default, as
// ZooKeeper does; admin.enableServer=false turns it off, and without a
// zoo.cfg it is off. Its port being in use is logged as a warning and the
// server runs on without it. Besides ZooKeeper's /commands it serves the
// probes /ready and /live, and the web console at / (package console;
// docs/console.md), which admin.console.enabled=false turns off alone.
//
// Unless GOGC is set in its environment, zkserver tunes the garbage
// collector after every collection so that the heap may grow by
// max(16 MiB, a quarter of the live heap) before the next one, instead of
// Go's default of the whole live heap (internal/gctune). GOGC=100 restores
// Go's default.
//
// With metricsProvider.className set to ZooKeeper's
// org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider, it
// serves Prometheus metrics at http://metricsProvider.httpHost:httpPort/metrics
// (default 0.0.0.0:7000; package metrics/exporter, docs/metrics.md).
//
// The -pprof flag (before the zoo.cfg) turns on a debug HTTP listener on
// host:port; it is off by default. It serves:
//
//	/debug/pprof/              net/http/pprof profiles (heap, CPU, goroutines, ...)
//	/debug/vars                expvar (the command line and runtime.MemStats)
//	/debug/zkraft/memstats     heap figures as JSON; with ?gc=1 after a full GC,
//	                           so heap_alloc is the live heap; zkbench reads it
//	                           and stack_inuse (goroutine stacks)
//
// The listener has no authentication and the profiles reveal the process's
// memory and command line, and ?gc=1 pauses it, so the address is the
// user's choice and should normally be a loopback one, e.g.
// zkserver -pprof 127.0.0.1:6060 zoo.cfg. Port 0 picks a free port, which
// the log line "debug HTTP listening" names.
package main
