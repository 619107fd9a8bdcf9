package server

import "sync"

// A connection's reader hands the requests it does not answer itself to a
// writer goroutine, which completes them in order and writes their
// replies and the watch events. The writer runs only while there is work:
// it is started by the first request or event that finds none running and
// exits when it has written everything, so an idle session has no writer
// goroutine (a goroutine pair per connection was most of the memory of
// 10,000 idle sessions). The queue between them is a slice that grows to
// the requests in flight, not a channel of maxOutstanding slots.

// writeQueue is the requests a connection's writer has yet to complete.
type writeQueue struct {
	mu      sync.Mutex
	items   []*pending // items[head:] wait, oldest first
	head    int
	running bool          // a writer goroutine runs
	ended   bool          // the reader has finished: nothing more is queued
	done    bool          // the final writer has run: start nothing more
	room    chan struct{} // the reader waits on it while the queue is full
}

// step is what the writer does next.
type step int

const (
	stepRequest step = iota // complete and write a request
	stepEvents              // write the queued watch events
	stepIdle                // nothing to do: the writer exits
	stepEnd                 // the reader has finished: write out and close
)

// put queues p for the writer, starting one if none runs; while
// maxOutstanding requests are queued it waits for room (ZooKeeper's
// back-pressure: the reader stops reading). False: the connection closed.
func (c *conn) put(p *pending) bool {
	q := &c.q
	for {
		q.mu.Lock()
		if len(q.items)-q.head < maxOutstanding {
			q.items = append(q.items, p)
			c.startWriterLocked()
			q.mu.Unlock()
			return true
		}
		if q.room == nil {
			q.room = make(chan struct{})
		}
		room := q.room
		q.mu.Unlock()
		select {
		case <-room:
		case <-c.done:
			return false
		}
	}
}

// endQueue tells the writer the reader has finished; a writer then
// writes out what is left and closes the connection.
func (c *conn) endQueue() {
	c.q.mu.Lock()
	defer c.q.mu.Unlock()
	c.q.ended = true
	c.startWriterLocked()
}

// wakeWriter has newly queued watch events written: unless a writer
// runs, a fan-out worker takes the writer's role (fanout.go).
func (c *conn) wakeWriter() {
	c.q.mu.Lock()
	claimed := c.claimWriterLocked()
	c.q.mu.Unlock()
	if claimed {
		c.srv.fanout.add(c)
	}
}

// startWriterLocked starts a writer unless one runs or the final one has.
// The caller holds q.mu.
func (c *conn) startWriterLocked() {
	if c.claimWriterLocked() {
		go c.writeLoop()
	}
}

// claimWriterLocked takes the writer's role for a writer about to run,
// unless one runs or the final one has, and reports whether it did. The
// caller holds q.mu. The reader is counted in the server's wait group
// until it has ended the queue, and after that a writer runs until the
// final one: so the group is never at zero here.
func (c *conn) claimWriterLocked() bool {
	if c.q.running || c.q.done {
		return false
	}
	c.q.running = true
	c.srv.wg.Add(1)
	return true
}

// next returns the writer's next step. With idleOK, an empty queue ends
// this writer (stepIdle); else it is reported as stepIdle without ending
// it, so that the writer can flush first. Without pop, a queued request is
// reported (stepRequest) but left in the queue, with a nil *pending.
func (c *conn) next(idleOK, pop bool) (step, *pending) {
	q := &c.q
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head < len(q.items) {
		if !pop {
			return stepRequest, nil
		}
		p := q.items[q.head]
		q.items[q.head] = nil
		q.head++
		if q.head == len(q.items) {
			q.items, q.head = q.items[:0], 0
			if cap(q.items) > maxOutstanding/4 {
				q.items = nil // a burst's array does not stay with an idle session
			}
		}
		if q.room != nil {
			close(q.room)
			q.room = nil
		}
		return stepRequest, p
	}
	switch {
	case c.events.len() > 0:
		return stepEvents, nil
	case q.ended:
		return stepEnd, nil
	case idleOK:
		q.running = false
	}
	return stepIdle, nil
}

// queuedRequests is the number of requests waiting for the writer.
func (c *conn) queuedRequests() int {
	c.q.mu.Lock()
	defer c.q.mu.Unlock()
	return len(c.q.items) - c.q.head
}

// finishQueue marks the final writer as run: nothing starts another.
func (c *conn) finishQueue() {
	c.q.mu.Lock()
	defer c.q.mu.Unlock()
	c.q.done = true
}
