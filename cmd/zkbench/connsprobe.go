package main

import (
	"context"
	"sync"
	"time"
)

// connsProbe is the other client of -op conns: one go-zookeeper session
// with one request in flight, alternating a get and a set of its own
// znode, whose latencies show what the held connections cost everyone
// else. It is measured three times: before the connections are opened,
// with them open and idle, and while the watch fires to all of them.
type connsProbe struct {
	s    *session
	path string
	data []byte
}

// probeStats are one phase's latencies.
type probeStats struct {
	get, set *histogram
	errors   int
	firstErr error
}

func newProbeStats() *probeStats {
	return &probeStats{get: newHistogram(), set: newHistogram()}
}

// merge adds o's samples.
func (p *probeStats) merge(o *probeStats) {
	p.get.merge(o.get)
	p.set.merge(o.set)
	p.errors += o.errors
	p.firstErr = firstErr(p.firstErr, o.firstErr)
}

// one times one get and one set.
func (p *connsProbe) one(st *probeStats) {
	t := time.Now()
	_, _, err := p.s.Get(p.path)
	p.note(st, st.get, t, err)
	t = time.Now()
	_, err = p.s.Set(p.path, p.data, -1)
	p.note(st, st.set, t, err)
}

func (p *connsProbe) note(st *probeStats, h *histogram, t time.Time, err error) {
	if err != nil {
		st.errors++
		st.firstErr = firstErr(st.firstErr, err)
		return
	}
	h.record(time.Since(t))
}

// runFor probes for d.
func (p *connsProbe) runFor(ctx context.Context, d time.Duration) *probeStats {
	st := newProbeStats()
	end := time.Now().Add(d)
	for time.Now().Before(end) && ctx.Err() == nil {
		p.one(st)
	}
	return st
}

// background probes until the returned stop is called, which returns the
// figures; a pair under way when stop is called is finished and counted.
func (p *connsProbe) background() (stop func() *probeStats) {
	st := newProbeStats()
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-quit:
				return
			default:
			}
			p.one(st)
		}
	})
	return func() *probeStats {
		close(quit)
		wg.Wait()
		return st
	}
}
