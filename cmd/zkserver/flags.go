package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/zkraft/zkraft/server"
)

// helpText follows the flags in `zkserver -h`: what a server started
// without a zoo.cfg does, the zoo.cfg keys people reach for first, and
// the signals it obeys.
const helpText = `
Without a zoo.cfg, zkserver is one in-memory server on 127.0.0.1:2181
(tickTime 2000, every four-letter word allowed, no AdminServer): its data
is gone when it stops. -port and -data-dir change that without a zoo.cfg;
with -data-dir the server keeps its data (a Raft log and snapshots) there.

A zoo.cfg is read as Apache ZooKeeper 3.8 reads it. The keys most set:
  clientPort, clientPortAddress   the client listener (2181)
  dataDir, dataLogDir             where snapshots and the log live (none: in memory)
  tickTime, initLimit, syncLimit  timing, in ms and ticks
  server.N=host:peer:election[:observer][;clientPort]   one line per member; myid in dataDir
  4lw.commands.whitelist          four-letter words served ("*" for all)
  admin.enableServer, admin.serverPort   the AdminServer (on, 8080, from a zoo.cfg),
                                  with the web console at / (docs/console.md)
  metricsProvider.className, metricsProvider.httpPort   Prometheus /metrics (7000)
  secureClientPort, ssl.*, authProvider.N, sslQuorum    TLS and authentication (docs/security.md)
Keys zkraft does not use are accepted and listed once at start. -port and
-data-dir override clientPort and dataDir.

Signals: SIGINT and SIGTERM stop the server cleanly. Logs are log/slog
text records on stderr. At info level a healthy server logs its start,
one line per leader change and its stop; warn and error lines need an
operator.`

// overrides are the flags that change the configuration, whether or not
// a zoo.cfg was given.
type overrides struct {
	port    int
	dataDir string
}

func (o *overrides) register(fs *flag.FlagSet) {
	fs.IntVar(&o.port, "port", 0, "client `port` (overrides clientPort; default 2181)")
	fs.StringVar(&o.dataDir, "data-dir", "", "keep the data in `dir` (overrides dataDir, and dataLogDir when it was dataDir; default: in memory)")
}

// apply sets the flags that were given on cfg and checks the result.
func (o *overrides) apply(fs *flag.FlagSet, cfg *server.Config) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["port"] && !given["data-dir"] {
		return nil
	}
	if given["port"] {
		if o.port < 1 || o.port > 65535 {
			return fmt.Errorf("-port %d: not a port (1-65535)", o.port)
		}
		cfg.ClientPort = o.port
	}
	if given["data-dir"] {
		if o.dataDir == "" {
			return fmt.Errorf("-data-dir: empty directory name")
		}
		if cfg.DataLogDir == "" || cfg.DataLogDir == cfg.DataDir {
			cfg.DataLogDir = o.dataDir
		}
		cfg.DataDir = o.dataDir
	}
	return cfg.Validate()
}

// printHelp writes `zkserver -h`.
func printHelp(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintln(w, errUsage)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprintln(w, helpText)
}
