package consensus

import (
	"runtime"
	"sync"
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
type yieldingLocker struct {
	sync.Locker
	since *time.Time
	debt  *time.Duration // held minus paused so far
	now   func() time.Time
	sleep func(time.Duration)
}

func newYieldingLocker(l sync.Locker) yieldingLocker {
	return yieldingLocker{Locker: l, since: new(time.Time), debt: new(time.Duration), now: time.Now, sleep: time.Sleep}
}

func (l yieldingLocker) Lock() {
	l.Locker.Lock()
	*l.since = l.now()
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
