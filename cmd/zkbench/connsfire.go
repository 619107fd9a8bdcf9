package main

import (
	"context"
	"fmt"
	"os"
	"time"
)

// connsFireResult is one firing of the watch to every held connection.
type connsFireResult struct {
	SetMs   float64 `json:"set_ms"` // the setData's own latency
	Got     int     `json:"events"`
	Missing int     `json:"missing"`
	P50Ms   float64 `json:"event_p50_ms"`
	P99Ms   float64 `json:"event_p99_ms"`
	LastMs  float64 `json:"last_event_ms"` // the time to the last event
	// ServerCPUUs and ClientCPUUs are the server processes' and zkbench's
	// CPU (user + system) from the setData to the last event, per event:
	// a figure of the server's own cost that the client's, on the same
	// two cores, does not blur. 0 when not readable (in-process target).
	ServerCPUUs float64 `json:"server_cpu_us_per_event"`
	ClientCPUUs float64 `json:"zkbench_cpu_us_per_event"`
}

// fires fires the watch -conns-fires times, setting the watches again
// between fires, with the probe running during every fan-out.
func (r *connsRun) fires(ctx context.Context) error {
	pooled := newHistogram()
	probe := newProbeStats()
	for k := range r.o.conns.fires {
		if k > 0 {
			if err := r.rearm(ctx); err != nil {
				return err
			}
		}
		fr, st, err := r.fireOnce(ctx, pooled)
		if err != nil {
			return fmt.Errorf("fire %d: %w", k+1, err)
		}
		r.res.Fires = append(r.res.Fires, fr)
		probe.merge(st)
	}
	r.res.Probe.Fire = summarizeProbe(probe)
	r.res.EventP50Ms = msOf(pooled.percentile(50))
	r.res.EventP99Ms = msOf(pooled.percentile(99))
	r.res.EventMaxMs = msOf(pooled.maximum())
	return nil
}

func msOf(d time.Duration) float64 { return float64(d) / 1e6 }

// fireOnce sends one setData of the shared znode and waits until every
// served connection has its event, or -conns-wait has passed; arrivals
// are added to pooled.
func (r *connsRun) fireOnce(ctx context.Context, pooled *histogram) (connsFireResult, *probeStats, error) {
	var fr connsFireResult
	f := newConnsFire(len(r.conns))
	f.want = int64(len(r.served))
	stopProbe := r.probe.background()
	server0, serverOK := processCPU(r.t.pids)
	client0, clientOK := processCPU([]int{os.Getpid()})
	f.start = time.Now()
	r.hub.fire.Store(f)
	_, err := r.control.Set(connsPath, nil, -1)
	fr.SetMs = msOf(time.Since(f.start))
	if err != nil {
		stopProbe()
		return fr, nil, fmt.Errorf("setData %s: %w", connsPath, err)
	}
	timer := time.NewTimer(r.o.conns.wait)
	defer timer.Stop()
	select {
	case <-f.done:
	case <-timer.C:
	case <-ctx.Done():
	}
	server1, _ := processCPU(r.t.pids)
	client1, _ := processCPU([]int{os.Getpid()})
	st := stopProbe()
	h := newHistogram()
	for _, c := range r.served {
		if d := f.arrival[c.idx].Load(); d > 0 {
			h.record(time.Duration(d))
		}
	}
	pooled.merge(h)
	fr.Got = int(h.count())
	fr.Missing = len(r.served) - fr.Got
	if fr.Got > 0 {
		fr.P50Ms, fr.P99Ms, fr.LastMs = msOf(h.percentile(50)), msOf(h.percentile(99)), msOf(h.maximum())
		if serverOK {
			fr.ServerCPUUs = perOpMicros(server1-server0, h.count())
		}
		if clientOK {
			fr.ClientCPUUs = perOpMicros(client1-client0, h.count())
		}
	}
	return fr, st, ctx.Err()
}

// rearm sets every served connection's watch again and waits for the
// replies.
func (r *connsRun) rearm(ctx context.Context) error {
	a := &connsArm{want: int64(len(r.served)), done: make(chan struct{})}
	r.hub.arm.Store(a)
	req := watchRequest(connsPath)
	failed := 0
	for _, c := range r.served {
		if err := c.raw.rearm(req); err != nil {
			failed++
		}
	}
	timer := time.NewTimer(r.o.conns.wait)
	defer timer.Stop()
	select {
	case <-a.done:
		return nil
	case <-timer.C:
		return fmt.Errorf("watches set again: %d of %d replies within %v (%d writes failed)", a.got.Load(), a.want, r.o.conns.wait, failed)
	case <-ctx.Done():
		return ctx.Err()
	}
}
