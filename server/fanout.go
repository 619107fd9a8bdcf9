package server

import (
	"runtime"
	"sync"
)

// A watch that fires on many connections at once (one znode watched by
// 20,000 clients) queues an event on each. Starting a writer goroutine per
// connection for it put thousands of goroutines in the scheduler's run
// queues at once: every other goroutine that became runnable meanwhile
// (the apply loop, other clients' readers and writers) waited behind all
// of them, so other clients' requests and even the write that fired the
// watch took about as long as the whole fan-out.
//
// Instead, a connection with events and no writer joins the server's
// fan-out list, and at most GOMAXPROCS workers take the writer's role for
// each in turn: they write its events without waiting (connwrite.go), and
// leave the connection to a writer goroutine of its own as soon as it has
// a request to complete (which may wait for consensus) or is ending (which
// may wait for the client to read). Workers exist only while the list is
// not empty, and yield to the scheduler every fanoutYieldEvery
// connections, so a fan-out shares the CPU with everything else.

// fanoutYieldEvery is how many connections a worker serves between yields.
const fanoutYieldEvery = 64

// fanout is the list of connections waiting for a worker, oldest first.
type fanout struct {
	mu      sync.Mutex
	conns   []*conn // conns[head:] wait
	head    int
	workers int
	// started counts the workers ever started (tests).
	started int
}

// add queues c, which holds the writer's role (connqueue.go), and starts
// a worker if fewer than GOMAXPROCS run.
func (f *fanout) add(c *conn) {
	f.mu.Lock()
	f.conns = append(f.conns, c)
	start := f.workers < runtime.GOMAXPROCS(0)
	if start {
		f.workers++
		f.started++
	}
	f.mu.Unlock()
	if start {
		go f.work()
	}
}

// take returns the next connection, or nil after retiring the calling
// worker when there is none.
func (f *fanout) take() *conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.head == len(f.conns) {
		f.conns, f.head = f.conns[:0], 0
		if cap(f.conns) > 1024 {
			f.conns = nil // a big fan-out's array does not stay
		}
		f.workers--
		return nil
	}
	c := f.conns[f.head]
	f.conns[f.head] = nil
	f.head++
	return c
}

func (f *fanout) work() {
	for i := 1; ; i++ {
		c := f.take()
		if c == nil {
			return
		}
		c.writePooled()
		if i%fanoutYieldEvery == 0 {
			runtime.Gosched()
		}
	}
}
