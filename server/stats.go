package server

import (
	"sync"
	"sync/atomic"
	"time"
)

// latency keeps min/avg/max of request latencies in milliseconds, as
// ZooKeeper's ServerStats prints them.
type latency struct {
	mu           sync.Mutex
	count, total int64
	min, max     int64
	hasMin       bool
}

func (l *latency) add(d time.Duration) {
	ms := d.Milliseconds()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	l.total += ms
	if !l.hasMin || ms < l.min {
		l.min, l.hasMin = ms, true
	}
	if ms > l.max {
		l.max = ms
	}
}

// snapshot returns min, avg and max.
func (l *latency) snapshot() (min int64, avg float64, max int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count > 0 {
		avg = float64(l.total) / float64(l.count)
	}
	return l.min, avg, l.max
}

func (l *latency) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count, l.total, l.min, l.max, l.hasMin = 0, 0, 0, 0, false
}

// stats are the server-wide counters behind srvr, stat and mntr.
type stats struct {
	lat                   latency
	packetsIn, packetsOut atomic.Int64
	connections           atomic.Int64
}

func (s *stats) received() { s.packetsIn.Add(1) }

func (s *stats) sent(d time.Duration) {
	s.packetsOut.Add(1)
	if d > 0 {
		s.lat.add(d)
	}
}

func (s *stats) connOpened() { s.connections.Add(1) }

func (s *stats) reset() {
	s.lat.reset()
	s.packetsIn.Store(0)
	s.packetsOut.Store(0)
}

// connStats are the per-connection counters behind cons.
type connStats struct {
	lat          latency
	in, out      atomic.Int64
	lastXid      atomic.Int32
	lastZxid     atomic.Int64
	lastResponse atomic.Int64 // unix ms
}

func (c *connStats) received() { c.in.Add(1) }

func (c *connStats) request(xid int32) { c.lastXid.Store(xid) }

func (c *connStats) sent(zxid int64, d time.Duration) {
	c.out.Add(1)
	c.lastZxid.Store(zxid)
	c.lastResponse.Store(time.Now().UnixMilli())
	c.lat.add(d)
}
