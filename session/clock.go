package session

import "time"

// Clock is the time source used by the session package; real in production,
// fake in tests.
type Clock interface {
	// Now returns the current time on this clock.
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed on this
	// clock; the returned Timer can be stopped. f is never called
	// synchronously from AfterFunc, so callers may hold locks while
	// scheduling.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call from happening. It returns true if the call was
	// still pending, false if it already ran, is running, or was stopped.
	Stop() bool
}

// realClock is the wall clock backed by package time.
type realClock struct{}

// RealClock returns the Clock backed by time.Now and time.AfterFunc.
func RealClock() Clock { return realClock{} }

// Now returns time.Now().
func (realClock) Now() time.Time { return time.Now() }

// AfterFunc wraps time.AfterFunc.
func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
