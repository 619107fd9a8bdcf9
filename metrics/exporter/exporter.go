package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zkraft/zkraft/internal/acceptretry"
)

// Path is where the metrics are served, as in ZooKeeper.
const Path = "/metrics"

// ErrListen wraps a failure to open the metrics port.
var ErrListen = errors.New("exporter: cannot listen for /metrics")

// Config says where and what to serve.
type Config struct {
	// Addr is host:port (metricsProvider.httpHost and httpPort); port 0
	// picks a free one (see Exporter.Addr).
	Addr string
	// ExportRuntime adds Go's go_* and the process's process_* metrics
	// (metricsProvider.exportJvmInfo).
	ExportRuntime bool
	// Logger receives HTTP errors; nil discards them.
	Logger *slog.Logger
}

// Exporter is a running /metrics endpoint.
type Exporter struct {
	reg  *prometheus.Registry
	ln   net.Listener
	http *http.Server
	done chan struct{}
}

// Start registers src's metrics, raft's and (if asked) the runtime's in a
// registry of its own and serves it on cfg.Addr.
func Start(src Source, cfg Config) (*Exporter, error) {
	reg, err := Registry(src, cfg.ExportRuntime)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("%w on %s: %v", ErrListen, cfg.Addr, err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// net/http's Serve stops on an accept error that is not a temporary
	// net.Error (ENOBUFS); the wrapper waits every failure out itself.
	ln = acceptretry.Wrap(ln, log, "metrics port")
	e := &Exporter{reg: reg, ln: ln, done: make(chan struct{})}
	e.http = &http.Server{
		Handler:           Handler(reg, log),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go func() {
		defer close(e.done)
		if err := e.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("/metrics server stopped", "err", err)
		}
	}()
	return e, nil
}

// Registry builds the registry Start serves: src's collector, raft's
// sink and, with runtime, Go's and the process's collectors.
func Registry(src Source, runtime bool) (*prometheus.Registry, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(newCollector(src)); err != nil {
		return nil, err
	}
	raft, err := raftCollector()
	if err != nil {
		return nil, err
	}
	if err := reg.Register(raft); err != nil {
		return nil, err
	}
	if runtime {
		if err := reg.Register(collectors.NewGoCollector()); err != nil {
			return nil, err
		}
		if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// Handler serves reg at Path in the classic text format; other paths are
// 404 and methods other than GET and HEAD 405 (ZooKeeper's Jetty refuses
// TRACE).
func Handler(reg *prometheus.Registry, log *slog.Logger) http.Handler {
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
		// Never OpenMetrics: it would rename counters to <name>_total.
		EnableOpenMetrics: false,
	})
	mux := http.NewServeMux()
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		metrics.ServeHTTP(w, r)
	})
	return mux
}

// Addr is the address the exporter listens on.
func (e *Exporter) Addr() net.Addr { return e.ln.Addr() }

// Registry returns the registry being served.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// Close stops serving, waiting up to five seconds for scrapes in progress.
func (e *Exporter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := e.http.Shutdown(ctx)
	<-e.done
	return err
}
