package main

import (
	"context"
	"encoding/json"
	"errors"
	"expvar"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"

	"github.com/zkraft/zkraft/internal/acceptretry"
)

// memStatsPath answers with the process's heap figures as JSON; with
// ?gc=1 it first runs a full garbage collection, so heap_alloc is then the
// live heap (zkbench's fill, sessions and watchers ops read it).
//
// A dedicated handler rather than /debug/pprof/heap?gc=1: the heap profile
// is a gzipped protobuf of sampled allocations (one sample per 512 KiB by
// default), so a client would need a profile decoder and would get an
// estimate; runtime.MemStats after runtime.GC is exact and fits in a few
// JSON numbers. /debug/vars (expvar) has the same MemStats but cannot force
// a collection first, so its HeapAlloc includes garbage.
const memStatsPath = "/debug/zkraft/memstats"

// memStats is the JSON document of memStatsPath (all sizes in bytes).
type memStats struct {
	HeapAlloc uint64 `json:"heap_alloc"` // bytes of allocated heap objects
	HeapInuse uint64 `json:"heap_inuse"` // bytes in in-use heap spans
	HeapSys   uint64 `json:"heap_sys"`   // heap memory obtained from the OS
	Sys       uint64 `json:"sys"`        // all memory obtained from the OS
	NumGC     uint32 `json:"num_gc"`
	GCForced  bool   `json:"gc_forced"`

	// StackInuse is the bytes of goroutine stacks, outside the heap
	// figures: a goroutine per connection costs its stack here.
	StackInuse uint64 `json:"stack_inuse"`
}

func serveMemStats(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	forced := r.URL.Query().Get("gc") == "1"
	if forced {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(memStats{
		HeapAlloc: ms.HeapAlloc, HeapInuse: ms.HeapInuse, HeapSys: ms.HeapSys,
		Sys: ms.Sys, NumGC: ms.NumGC, GCForced: forced, StackInuse: ms.StackInuse,
	})
}

// debugMux serves net/http/pprof under /debug/pprof/, expvar at
// /debug/vars and memStatsPath, on its own mux (never the default one).
func debugMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/debug/vars", expvar.Handler())
	mux.HandleFunc(memStatsPath, serveMemStats)
	return mux
}

// startDebug listens on addr and serves debugMux until the returned stop
// function is called.
func startDebug(addr string, log *slog.Logger) (stop func(), err error) {
	tcp, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ln := acceptretry.Wrap(tcp, log, "debug port") // failed accepts are waited out, not the end of Serve
	hs := &http.Server{Handler: debugMux(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("debug HTTP server stopped", "err", err)
		}
	}()
	log.Info("debug HTTP listening", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if hs.Shutdown(ctx) != nil {
			hs.Close() // a profile still streaming
		}
		<-done
	}, nil
}
