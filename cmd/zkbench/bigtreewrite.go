package main

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// opSpan is one write: when it was sent and when its reply came, in
// nanoseconds since the writers' base time.
type opSpan struct{ start, end int64 }

func (s opSpan) latency() time.Duration { return time.Duration(s.end - s.start) }

// span is a stretch of time, in nanoseconds since the same base.
type span struct{ from, to int64 }

// overlaps reports whether the write was in flight during any of spans.
func (s opSpan) overlaps(spans []span) bool {
	for _, sp := range spans {
		if s.start <= sp.to && s.end >= sp.from {
			return true
		}
	}
	return false
}

// writers set random znodes of the tree from their sessions, one request
// at a time each, and keep every write's span until stopped.
type writers struct {
	base  time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	spans []opSpan
	errs  int
}

// startWriters starts one writer per session.
func startWriters(sessions []*session, o *options) *writers {
	w := &writers{base: time.Now(), stop: make(chan struct{})}
	data := payload(o.size)
	for k, s := range sessions {
		w.wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(k), uint64(w.base.UnixNano())))
			var mine []opSpan
			errs := 0
			for {
				select {
				case <-w.stop:
					w.mu.Lock()
					w.spans = append(w.spans, mine...)
					w.errs += errs
					w.mu.Unlock()
					return
				default:
				}
				start := w.now()
				if err := setOne(s.Conn, rng.IntN(o.n), o, data); err != nil {
					errs++
					continue
				}
				mine = append(mine, opSpan{start, w.now()})
			}
		})
	}
	return w
}

func (w *writers) now() int64 { return int64(time.Since(w.base)) }

// finish stops the writers and returns every write in the order sent.
func (w *writers) finish() ([]opSpan, int) {
	close(w.stop)
	w.wg.Wait()
	slices.SortFunc(w.spans, func(a, b opSpan) int { return int(a.start - b.start) })
	return w.spans, w.errs
}

// latencyStats are the latencies of a set of writes.
type latencyStats struct {
	n        int
	p50, p99 time.Duration
	max      time.Duration
}

// statsOf returns the latencies of the writes keep selects.
func statsOf(spans []opSpan, keep func(opSpan) bool) latencyStats {
	var ls []time.Duration
	for _, s := range spans {
		if keep(s) {
			ls = append(ls, s.latency())
		}
	}
	if len(ls) == 0 {
		return latencyStats{}
	}
	slices.Sort(ls)
	return latencyStats{n: len(ls), p50: pick(ls, 50), p99: pick(ls, 99), max: ls[len(ls)-1]}
}

// pollUntil polls cond every interval until it holds, the timeout passes
// (false) or ctx ends.
func pollUntil(ctx context.Context, timeout, interval time.Duration, cond func() bool) (bool, error) {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-tick.C:
		}
	}
	return true, nil
}
