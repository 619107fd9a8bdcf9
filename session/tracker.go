package session

import (
	"sync"
	"time"
)

// Tracker is the leader-only session expiry queue, after ZooKeeper's
// ExpiryQueue. Sessions sit in buckets one tick wide: Add and Touch move a
// session to the bucket roundUp(now+timeout), the first tick boundary
// strictly after now+timeout. Once a bucket's time has passed, every session
// still in it is marked closing and reported to the expire callback exactly
// once (until it is added again).
//
// Bucket times are measured from the tracker's creation on its Clock (with
// RealClock this uses the monotonic clock, as ZooKeeper uses nanoTime).
//
// A single timer is pending at any time, set for the earliest non-empty
// bucket; no goroutine runs between expirations.
//
// All methods are safe for concurrent use. The expire callback runs on a
// timer goroutine without the tracker's lock held, and calls are serialised;
// it may call Add, Touch, Remove, SetClosing and Deadlines, but must not call
// Stop (Stop waits for callbacks to finish) and should not block for long.
type Tracker struct {
	clock  Clock
	tick   time.Duration
	expire func(id int64)
	base   time.Time

	inflight sync.WaitGroup // one count per scheduled timer until it is stopped or has run

	mu       sync.Mutex
	sessions map[int64]*tracked
	buckets  map[time.Duration]map[int64]struct{}
	running  bool
	stopped  bool
	firing   bool          // expire callbacks in progress; fire reschedules afterwards
	timer    Timer         // pending timer, nil if none
	timerAt  time.Duration // bucket the pending timer is set for
	gen      uint64        // identifies the current timer; stale firings do nothing
}

// tracked is the tracker's state for one session.
type tracked struct {
	timeout time.Duration
	bucket  time.Duration // offset from base; meaningful unless closing
	closing bool
}

// NewTracker returns a stopped tracker with buckets tick wide (tick must be
// positive) that reports expired sessions to expire.
func NewTracker(clock Clock, tick time.Duration, expire func(id int64)) *Tracker {
	if tick <= 0 {
		panic("session: NewTracker: tick must be positive")
	}
	return &Tracker{
		clock:    clock,
		tick:     tick,
		expire:   expire,
		base:     clock.Now(),
		sessions: make(map[int64]*tracked),
		buckets:  make(map[time.Duration]map[int64]struct{}),
	}
}

// Start begins expiring sessions. Sessions added before Start whose bucket
// has already passed expire promptly. Start on a running or stopped tracker
// does nothing; a stopped tracker cannot be restarted.
func (t *Tracker) Start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running || t.stopped {
		return
	}
	t.running = true
	t.schedule()
}

// Stop ends expiry. It is idempotent; once it returns no expire callback is
// running or will run, and no timer goroutine of the tracker remains. It
// must not be called from the expire callback.
func (t *Tracker) Stop() {
	t.mu.Lock()
	t.running = false
	t.stopped = true
	t.stopTimer()
	t.mu.Unlock()
	t.inflight.Wait()
}

// Add tracks session id with the given timeout, or re-arms it if already
// tracked (clearing any closing mark): it will expire unless touched before
// roundUp(now+timeout). A new leader calls Add for every session so each
// gets a full timeout.
func (t *Tracker) Add(id int64, timeout time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	if s == nil {
		s = &tracked{closing: true}
		t.sessions[id] = s
	}
	if !s.closing {
		t.unbucket(id, s)
	}
	s.timeout = timeout
	s.closing = false
	t.arm(id, s)
}

// Touch records activity on session id, moving it to the bucket
// roundUp(now+timeout). It returns false if the session is unknown (never
// added, removed) or closing (expired or marked by SetClosing).
func (t *Tracker) Touch(id int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	if s == nil || s.closing {
		return false
	}
	if t.roundUp(t.elapsed()+s.timeout) == s.bucket {
		return true // still in its bucket: the usual case under load, as in ExpiryQueue.update
	}
	t.unbucket(id, s)
	t.arm(id, s)
	return true
}

// Remove stops tracking session id; it will not be reported.
func (t *Tracker) Remove(id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	if s == nil {
		return
	}
	if !s.closing {
		t.unbucket(id, s)
	}
	delete(t.sessions, id)
}

// SetClosing marks session id as closing (for example when the client sent
// closeSession): it stays tracked, Touch fails, and it is not reported.
func (t *Tracker) SetClosing(id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	if s == nil || s.closing {
		return
	}
	t.unbucket(id, s)
	s.closing = true
}

// IsClosing reports whether session id is tracked and closing.
func (t *Tracker) IsClosing(id int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	return s != nil && s.closing
}

// Len returns the number of tracked sessions, closing ones included.
func (t *Tracker) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.sessions)
}

// Deadlines returns the time at which each tracked, non-closing session will
// expire unless touched (its bucket time), for dumps.
func (t *Tracker) Deadlines() map[int64]time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[int64]time.Time, len(t.sessions))
	for id, s := range t.sessions {
		if !s.closing {
			out[id] = t.base.Add(s.bucket)
		}
	}
	return out
}

// elapsed returns the clock's current offset from base.
func (t *Tracker) elapsed() time.Duration { return t.clock.Now().Sub(t.base) }

// roundUp returns the first bucket boundary strictly after at, as
// ExpiryQueue.roundToNextInterval.
func (t *Tracker) roundUp(at time.Duration) time.Duration {
	return (at/t.tick + 1) * t.tick
}

// arm puts session s into the bucket for now+timeout. t.mu must be held.
func (t *Tracker) arm(id int64, s *tracked) {
	s.bucket = t.roundUp(t.elapsed() + s.timeout)
	b := t.buckets[s.bucket]
	if b == nil {
		b = make(map[int64]struct{})
		t.buckets[s.bucket] = b
	}
	b[id] = struct{}{}
	t.schedule()
}

// unbucket takes session s out of its bucket. t.mu must be held.
func (t *Tracker) unbucket(id int64, s *tracked) {
	b := t.buckets[s.bucket]
	delete(b, id)
	if len(b) == 0 {
		delete(t.buckets, s.bucket)
	}
}
