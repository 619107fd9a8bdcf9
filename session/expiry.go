package session

import (
	"sort"
	"time"
)

// schedule makes sure a timer is pending for the earliest non-empty bucket,
// replacing a timer set for a later time. t.mu must be held.
func (t *Tracker) schedule() {
	if !t.running || t.firing {
		return
	}
	next, ok := t.earliest()
	if !ok {
		t.stopTimer()
		return
	}
	if t.timer != nil && t.timerAt <= next {
		return
	}
	t.stopTimer()
	t.gen++
	gen := t.gen
	t.inflight.Add(1)
	t.timerAt = next
	t.timer = t.clock.AfterFunc(next-t.elapsed(), func() { t.fire(gen) })
}

// stopTimer cancels the pending timer, if any. t.mu must be held.
func (t *Tracker) stopTimer() {
	if t.timer == nil {
		return
	}
	if t.timer.Stop() {
		t.inflight.Done() // it will never run
	}
	t.timer = nil
}

// earliest returns the earliest bucket time. t.mu must be held.
func (t *Tracker) earliest() (time.Duration, bool) {
	var first time.Duration
	found := false
	for at := range t.buckets {
		if !found || at < first {
			first, found = at, true
		}
	}
	return first, found
}

// fire runs when timer gen is due: it expires every passed bucket, reports
// the sessions without holding t.mu, then schedules the next timer.
func (t *Tracker) fire(gen uint64) {
	defer t.inflight.Done()
	expired := t.collect(gen)
	if expired == nil {
		return
	}
	for _, id := range expired {
		if !t.shouldReport(id) {
			continue
		}
		t.expire(id)
	}
	t.mu.Lock()
	t.firing = false
	t.schedule()
	t.mu.Unlock()
}

// collect marks every session of the passed buckets closing and returns
// them in (bucket, id) order. It returns nil if gen is stale or the tracker
// stopped; otherwise it sets t.firing and returns a non-nil slice.
func (t *Tracker) collect(gen uint64) []int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.running || gen != t.gen {
		return nil
	}
	t.timer = nil
	t.firing = true
	now := t.elapsed()
	var due []time.Duration
	for at := range t.buckets {
		if at <= now {
			due = append(due, at)
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i] < due[j] })
	expired := []int64{}
	for _, at := range due {
		expired = append(expired, t.drain(at)...)
	}
	return expired
}

// drain empties bucket at, marking its sessions closing, and returns their
// ids sorted. t.mu must be held.
func (t *Tracker) drain(at time.Duration) []int64 {
	ids := make([]int64, 0, len(t.buckets[at]))
	for id := range t.buckets[at] {
		t.sessions[id].closing = true
		ids = append(ids, id)
	}
	delete(t.buckets, at)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// shouldReport reports whether an expired session should still be passed to
// the callback: the tracker is running and the session was neither removed
// nor re-added since it expired.
func (t *Tracker) shouldReport(id int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	return t.running && s != nil && s.closing
}
