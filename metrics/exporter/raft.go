package exporter

import (
	"sync"
	"time"

	gometrics "github.com/armon/go-metrics"
	gmprom "github.com/armon/go-metrics/prometheus"
	"github.com/prometheus/client_golang/prometheus"
)

// hashicorp/raft v1.7 reports through github.com/hashicorp/go-metrics/compat,
// which in a default build forwards to armon/go-metrics' global registry.
// That registry is one per process, so the sink is too: every exporter in
// the process (one in zkserver; several in a test of an in-process
// ensemble, which then see all members' raft_* together) registers the
// same sink in its own Prometheus registry.

// raftExpiration drops a raft_* series not updated for this long, as
// go-metrics' sink does by default (a follower's replication series
// disappear a minute after it stops leading).
const raftExpiration = time.Minute

var raftSink struct {
	once sync.Once
	sink *gmprom.PrometheusSink
	err  error
}

// InstallRaftMetrics installs the process's go-metrics sink now, so that
// the raft_* events of a server's start (its first election's
// raft_state_* counters) are kept; Start installs it otherwise. It is
// idempotent.
func InstallRaftMetrics() error {
	_, err := raftCollector()
	return err
}

// raftCollector returns the process's go-metrics sink, installing it as
// armon/go-metrics' global sink on first use. Hostname prefixes and
// go-metrics' own runtime figures are off: Go's collector covers those.
func raftCollector() (prometheus.Collector, error) {
	raftSink.once.Do(func() {
		sink, err := gmprom.NewPrometheusSinkFrom(gmprom.PrometheusOpts{
			Expiration: raftExpiration,
			Registerer: prometheus.NewRegistry(), // a throwaway: each exporter registers the sink itself
		})
		if err != nil {
			raftSink.err = err
			return
		}
		cfg := gometrics.DefaultConfig("")
		cfg.EnableHostname = false
		cfg.EnableHostnameLabel = false
		cfg.EnableRuntimeMetrics = false
		if _, err := gometrics.NewGlobal(cfg, sink); err != nil {
			raftSink.err = err
			return
		}
		raftSink.sink = sink
	})
	return raftSink.sink, raftSink.err
}
