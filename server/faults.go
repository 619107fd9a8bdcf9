package server

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// Fault makes the server misbehave on purpose for the next client requests
// that match it, so that a test can watch a client (or a recipe built on
// one) cope with a slow server, an error, or a connection lost before or
// after a request ran.
//
// A fault stands for trouble with the client's own requests, so the
// packets that keep a session and its connection going or end it (ping,
// auth, sasl, setWatches, setWatches2, closeSession) are left alone by a fault whose Ops is empty;
// they are matched by opcode, whatever xid the client gave them (Java's
// client sends setWatches with xid -8, go-zookeeper with an ordinary
// positive one). A fault that names one of them in Ops does match it.
type Fault struct {
	// Ops limits the fault to these opcodes; empty matches every request
	// except the session-upkeep ones above.
	Ops []wire.Op
	// Session limits the fault to one session; 0 matches every session.
	Session int64
	// Count is how many matching requests the fault affects (at least 1).
	Count int
	// Delay holds each affected request this long before the server
	// handles it. The connection's later requests wait behind it, since a
	// connection's requests are handled in order.
	Delay time.Duration
	// Err, if not zero, is the error code the request is answered with;
	// the request does not run.
	Err wire.Code
	// Drop closes the connection, before or after the request runs.
	Drop Drop
}

// Drop says where a Fault cuts the connection.
type Drop int

const (
	// DropNone keeps the connection.
	DropNone Drop = iota
	// DropRequest closes the connection without running the request: the
	// client sees a connection loss for a request that never happened.
	DropRequest
	// DropReply runs the request, then closes the connection instead of
	// answering: the client sees a connection loss for a request that did
	// happen (the lost-reply case recipes must recover from).
	DropReply
)

// ErrBadFault is returned by InjectFault for a fault that both answers with
// an error and drops the connection.
var ErrBadFault = errors.New("server: a fault cannot both answer with an error and drop the connection")

// InjectFault arms f. Faults are matched in the order they were injected;
// each request is affected by at most one.
func (s *Server) InjectFault(f Fault) error {
	if f.Err != 0 && f.Drop != DropNone {
		return ErrBadFault
	}
	if f.Count < 1 {
		f.Count = 1
	}
	f.Ops = slices.Clone(f.Ops)
	s.faults.add(&f)
	return nil
}

// ClearFaults disarms every fault not yet used up.
func (s *Server) ClearFaults() { s.faults.clear() }

// faultList holds the armed faults; armed lets the request path skip the
// lock while none is.
type faultList struct {
	armed atomic.Int32
	mu    sync.Mutex
	list  []*Fault // remaining Count decremented in place
}

func (l *faultList) add(f *Fault) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, f)
	l.armed.Store(int32(len(l.list)))
}

func (l *faultList) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = nil
	l.armed.Store(0)
}

// take uses up one request's worth of the first fault matching it.
func (l *faultList) take(session int64, op wire.Op) (Fault, bool) {
	if l.armed.Load() == 0 {
		return Fault{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, f := range l.list {
		if (f.Session != 0 && f.Session != session) || !f.matchesOp(op) {
			continue
		}
		if f.Count--; f.Count == 0 {
			l.list = slices.Delete(l.list, i, i+1)
			l.armed.Store(int32(len(l.list)))
		}
		return *f, true
	}
	return Fault{}, false
}

// matchesOp reports whether the fault applies to opcode op.
func (f *Fault) matchesOp(op wire.Op) bool {
	if len(f.Ops) > 0 {
		return slices.Contains(f.Ops, op)
	}
	return !upkeepOp(op)
}

// upkeepOp reports whether op keeps a session or connection going (or
// ends the session) rather than doing the client's work; an unfiltered
// Fault leaves these alone, so a test's session-wide fault armed across a
// reconnect hits the client's next real request, not its watch
// re-registration, and never keeps a session from closing.
func upkeepOp(op wire.Op) bool {
	switch op {
	case wire.OpPing, wire.OpAuth, wire.OpSASL, wire.OpSetWatches, wire.OpSetWatches2, wire.OpCloseSession:
		return true
	}
	return false
}

// faultBefore applies the part of a fault that comes before the request
// runs, and returns the pending reply that replaces the request, if any.
func (c *conn) faultBefore(f Fault, xid int32, op wire.Op) *pending {
	if f.Delay > 0 {
		c.flushInline() // earlier replies are not part of the delay
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-c.done:
			t.Stop()
		}
	}
	switch {
	case f.Err != 0:
		return c.errorReply(xid, op, f.Err)
	case f.Drop == DropRequest:
		return &pending{final: true, ready: &reply{skip: true}}
	}
	return nil
}
