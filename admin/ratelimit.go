package admin

import (
	"sync"
	"time"
)

// rateLimiter lets one call through per interval (ZooKeeper 3.9's
// RateLimiter with a rate of 1): the first at once, the next once the
// interval has passed since the last one let through. An interval of 0
// lets every call through.
type rateLimiter struct {
	interval time.Duration
	now      func() time.Time

	mu   sync.Mutex
	last time.Time // zero before the first call let through
}

func newRateLimiter(interval time.Duration) *rateLimiter {
	return &rateLimiter{interval: interval, now: time.Now}
}

// allow reports whether a call may proceed now, and counts it if so.
func (l *rateLimiter) allow() bool {
	if l.interval <= 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !l.last.IsZero() && now.Sub(l.last) < l.interval {
		return false
	}
	l.last = now
	return true
}
