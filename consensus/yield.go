package consensus

import (
	"runtime"
	"sync"
	"time"
)

// yieldingLocker is the read lock a snapshot's or a backup's walk takes
// in short steps. The walk is CPU work that competes with the goroutines
// applying and answering writes, so after each step it gives way: it
// yields its processor, and it pauses as long as the step held the lock,
// which caps a walk at about half a core however large the tree.
// Without this, a walk kept a processor until the scheduler preempted it
// (up to 10 ms at a time) and took a core from the writes for the whole
// walk (BenchmarkBackupStall, docs/backup.md).
type yieldingLocker struct {
	sync.Locker
	since *time.Time
}

func newYieldingLocker(l sync.Locker) yieldingLocker {
	return yieldingLocker{Locker: l, since: new(time.Time)}
}

func (l yieldingLocker) Lock() {
	l.Locker.Lock()
	*l.since = time.Now()
}

func (l yieldingLocker) Unlock() {
	held := time.Since(*l.since)
	l.Locker.Unlock()
	if held >= minPause {
		time.Sleep(held)
		return
	}
	runtime.Gosched()
}

// minPause is the shortest step worth a sleep; shorter ones only yield.
const minPause = 50 * time.Microsecond
