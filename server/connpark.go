package server

import (
	"errors"
	"sync/atomic"
	"time"
)

// errParkerClosed refuses to park a connection: the server is stopping.
var errParkerClosed = errors.New("server: parking stopped")

// An idle session needs no goroutine. A reader that has waited parkAfter
// for the next request, with nothing buffered, parks its connection: it
// registers the socket with the server's parker (an epoll set on Linux,
// connpark_linux.go) and its goroutine exits. When the socket becomes
// readable, or the connection is closed, resume starts a new reader
// goroutine, which carries on where the last one stopped. With a reader
// and a writer goroutine each, 10,000 idle sessions held 82 MB of stacks
// and 10 MB of goroutine records; the writer runs only while there is
// something to write (connqueue.go).
//
// Only a connection read through its descriptor (sockReader) parks, and
// only between requests: a partly read request keeps its reader. A busy
// connection never parks, so requests pay nothing for it but setting and
// clearing a read deadline when the reader waits for input.

// parkAfter is how long a reader waits for input before it parks
// (Server.parkAfter; tests shorten it). A client pings every third of its
// session timeout or so, and each ping keeps a reader goroutine (and its
// stack, 8 KiB once it has served requests) for parkAfter: at 1 s that was
// a tenth of 10,000 idle sessions with 10 s between pings, at 100 ms it is
// a hundredth. A client that sends requests less often than this pays a
// wake-up (an epoll_ctl and a goroutine start, microseconds) per request.
const parkAfter = 100 * time.Millisecond

// The states of a connection's reader (conn.parked).
const (
	readerRunning int32 = iota // a goroutine reads the connection
	readerParked               // none does: resume starts one
)

// readOutcome is how readRequests stopped.
type readOutcome int

const (
	readFailed readOutcome = iota // the connection ends
	readFinal                     // a final request (closeSession) was queued
	readParked                    // the reader parked: its goroutine exits
)

// parkState is what a connection keeps for parking.
type parkState struct {
	state atomic.Int32 // readerRunning or readerParked
	// fd and gone are guarded by the parker's mutex.
	fd   int32 // the descriptor it was registered with; -1: never
	gone bool  // the connection was forgotten: it parks no more
}

// idleThenPark waits up to parkAfter for input, at a request boundary,
// and parks the connection if none came. True: the goroutine must exit.
func (c *conn) idleThenPark() bool {
	sr, ok := c.br.(*sockReader)
	if !ok || c.srv.parker == nil || sr.waitInput(c.nc, c.srv.parkAfter) {
		return false
	}
	return c.park(sr)
}

// park registers the connection with the parker. True: the caller's
// goroutine must exit (parked, or resumed by another already).
func (c *conn) park(sr *sockReader) bool {
	c.pk.state.Store(readerParked)
	var perr error
	err := sr.withFD(func(fd uintptr) { perr = c.srv.parker.add(c, int(fd)) })
	if err == nil && perr == nil {
		return true
	}
	// Not parked (the socket is closing, the server stopping): go on
	// reading here, unless close has resumed the connection already.
	return !c.pk.state.CompareAndSwap(readerParked, readerRunning)
}

// resume starts a reader for a parked connection; it does nothing when a
// reader runs (a wake-up is only a hint).
func (c *conn) resume() {
	if c.pk.state.CompareAndSwap(readerParked, readerRunning) {
		go c.serveRequests()
	}
}

// unpark forgets the connection in the parker (forget calls it).
func (c *conn) unpark() {
	if c.srv.parker != nil {
		c.srv.parker.remove(c)
	}
}
