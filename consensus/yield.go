package consensus

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// yieldingLocker is the read lock a snapshot's or a backup's walk takes
// in short steps. The walk is CPU work that competes with the goroutines
// applying and answering writes, so after each step it gives way: it
// yields its processor, and it pauses, in all, as long as it has held the
// lock, which caps a walk at about half a core however large the tree.
// Without this, a walk kept a processor until the scheduler preempted it
// (up to 10 ms at a time) and took a core from the writes for the whole
// walk (BenchmarkBackupStall, docs/backup.md).
//
// The pause is owed, not taken after every step: a step holds the lock
// for tens of microseconds, and a sleep that short lasts a millisecond or
// more (the runtime's timers), so sleeping after each step gave the walk
// about 5% of a core, and a 10M-znode snapshot took 99 s to write under
// writes. The walk sleeps once its debt reaches minPause, and what a
// sleep overshoots is credited against the next steps.
//
// Time spent waiting for the lock is credited too, up to maxCredit: the
// walk used no CPU meanwhile, and the writes it waited for had the lock.
// Beside a bulk load nearly every step waits behind an apply batch, and a
// pause on top of each wait cut a 2.5M-znode snapshot's progress to a
// fifth of its time (55 s: 19 s waiting, 11 s holding, 11 s pausing), so
// snapshots trailed the load by millions of znodes and a restart replayed
// them all.
type yieldingLocker struct {
	sync.Locker
	// waiting counts the walks waiting for the lock (fsm.walkers), so
	// that an apply batch lets them in (see ApplyBatch).
	waiting *atomic.Int32
	since   *time.Time
	debt    *time.Duration // held minus paused so far
	now     func() time.Time
	sleep   func(time.Duration)
}

func newYieldingLocker(l sync.Locker, waiting *atomic.Int32) yieldingLocker {
	return yieldingLocker{Locker: l, waiting: waiting, since: new(time.Time), debt: new(time.Duration), now: time.Now, sleep: time.Sleep}
}

func (l yieldingLocker) Lock() {
	start := l.now()
	l.waiting.Add(1)
	l.Locker.Lock()
	l.waiting.Add(-1)
	*l.since = l.now()
	*l.debt = max(*l.debt-l.since.Sub(start), -maxCredit)
}

func (l yieldingLocker) Unlock() {
	*l.debt += l.now().Sub(*l.since)
	l.Locker.Unlock()
	if *l.debt >= minPause {
		start := l.now()
		l.sleep(*l.debt)
		*l.debt -= l.now().Sub(start)
		return
	}
	runtime.Gosched()
}

// minPause is the least pause owed that is worth a sleep; until then the
// walk only yields.
const minPause = time.Millisecond

// maxCredit bounds the pause the walk may have paid ahead, by waits and
// by sleeps that overshot.
const maxCredit = 20 * time.Millisecond
