package consensus

import "time"

// The quiet snapshot. A restart replays the log since the last snapshot,
// and a replayed write costs several times what loading it from a
// snapshot does: at 10M znodes a server loaded 2.4M znodes from its
// snapshot in 3 s and replayed the 7.6M creates after it in 30-35 s
// (docs/scale.md). Snapshots come by snapCount and by the log's size, so
// after a bulk load stops the log may hold most of a snapshot's worth of
// writes until the next burst, and every restart meanwhile pays for them.
//
// So a server that has applied nothing for quietSnapAfter snapshots on
// its own when the log since its last snapshot holds a quarter of either
// limit (a quarter of snapCount entries, or a quarter of the byte limit).
// It costs one snapshot per quiet spell at most, written while the server
// has nothing else to do, and a later restart loads what it would have
// replayed. ZooKeeper has no such rule: its restarts replay whatever the
// last snapshot left.

// quietSnapAfter is how long without an applied entry makes a server
// quiet.
const quietSnapAfter = 10 * time.Second

// worthQuiet reports whether the log up to index, since the last snapshot,
// is worth a snapshot once the server is quiet. FSM goroutine only.
func (c *snapCounter) worthQuiet(index uint64) bool {
	if index-c.last >= max(c.count/4, 1) {
		return true
	}
	limit := c.fullByteLimit()
	return limit > 0 && c.bytes >= limit/4
}

// watchQuiet starts the goroutine that asks for a snapshot once the
// server has been quiet for after with a log worth one; wait stops it.
func (c *snapCounter) watchQuiet(after time.Duration) {
	c.quit = make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		tick := time.NewTicker(after / 4)
		defer tick.Stop()
		for {
			select {
			case <-c.quit:
				return
			case now := <-tick.C:
				c.checkQuiet(now, after)
			}
		}
	}()
}

// checkQuiet asks for the quiet snapshot when it is due at now. One
// request per quiet spell: the next applied batch decides again. A
// snapshot still being taken (one the writes asked for before they
// stopped, which covers the log only up to where it began) puts it off
// to a later look.
func (c *snapCounter) checkQuiet(now time.Time, after time.Duration) {
	if now.Sub(time.Unix(0, c.lastAt.Load())) < after || !c.quietDue.Load() || !c.pending.CompareAndSwap(false, true) {
		return
	}
	c.quietDue.Store(false)
	c.launch()
}
