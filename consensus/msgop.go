package consensus

import (
	"strconv"
	"sync/atomic"
	"unicode/utf8"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/wire"
)

// Each record that carries a client write names it (TraceMessage.Op):
// "create /x", "setData /y", "delete /z", "createSession", "closeSession",
// "multi", ... so that a view can tell one write from the next. The name
// is taken where the recorder sees the request, and only while it
// records:
//
//   - a forward (forwardSent): from the proposal's Command, which this
//     server still holds among its waiters (wait.go) when it sends it;
//   - a leader's AppendEntries (recordAppend): from its first transaction
//     entry's bytes, read as far as the path and no further, with " +N"
//     when N more transactions ride along.
//
// A path is cut to opPathMax bytes (on a character boundary, with "…"),
// so a label is at most about 80 bytes whatever the path.

// opPathMax bounds the path in a label.
const opPathMax = 60

// opMax bounds a whole label (an op read from another member is cut to
// it too).
const opMax = 96

// opLabel names op on path ("" for ops without one).
func opLabel(op wire.Op, path string) string {
	name := op.String()
	if path == "" {
		return name
	}
	return name + " " + cutText(path, opPathMax)
}

// cutText returns s cut to at most n bytes on a character boundary,
// with "…" when it was cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// commandOp names a proposal's Command.
func commandOp(c *Command) string {
	switch c.Kind {
	case KindCreateSession:
		return wire.OpCreateSession.String()
	case KindCloseSession:
		return wire.OpCloseSession.String()
	case KindError:
		return wire.OpError.String()
	case KindConfig:
		return wire.OpReconfig.String()
	case KindTxn:
		if c.Txn != nil {
			return opLabel(c.Txn.Op, bodyPath(c.Txn.Body))
		}
	}
	return ""
}

// bodyPath is the path a transaction's body names, if any.
func bodyPath(b wire.Record) string {
	switch r := b.(type) {
	case *wire.CreateRequest:
		return r.Path
	case *wire.CreateTTLRequest:
		return r.Path
	case *wire.DeleteRequest:
		return r.Path
	case *wire.SetDataRequest:
		return r.Path
	case *wire.SetACLRequest:
		return r.Path
	case *wire.CheckVersionRequest:
		return r.Path
	case *wire.DeleteContainerRequest:
		return r.Path
	}
	return ""
}

// encodedOp names an encoded Command (a log entry's data) without
// decoding it: it reads the header, the transaction's header and, for
// the ops whose body starts with a path, that path (see Command.Encode,
// datatree.Txn.Encode). "" when the bytes are not a command.
func encodedOp(b []byte) string {
	d := wire.NewDecoder(b, 0)
	kind := Kind(d.Int())
	d.Long() // Origin
	d.Long() // Seq
	if d.Err() != nil {
		return ""
	}
	switch kind {
	case KindCreateSession, KindCloseSession, KindError, KindConfig:
		return commandOp(&Command{Kind: kind})
	case KindTxn:
	default:
		return ""
	}
	d.Long() // Time
	d.Long() // Session
	if n := d.Count(8); n > 0 {
		for i := 0; i < n && d.Err() == nil; i++ {
			var id wire.Id
			id.Decode(d)
		}
	}
	op := wire.Op(d.Int())
	if d.Err() != nil {
		return ""
	}
	path := ""
	switch op {
	case wire.OpCreate, wire.OpCreate2, wire.OpCreateContainer, wire.OpCreateTTL,
		wire.OpDelete, wire.OpSetData, wire.OpSetACL, wire.OpCheck:
		path = d.String()
	case wire.OpDeleteContainer:
		// The raw path runs to the end: only what is shown is read.
		path = string(d.Bytes(min(d.Remaining(), opPathMax+utf8.UTFMax)))
	}
	if d.Err() != nil {
		path = ""
	}
	return opLabel(op, path)
}

// entriesOp names the transactions among entries: the first one's op,
// with " +N" for the N others.
func entriesOp(first []byte, commands int) string {
	op := encodedOp(first)
	if op != "" && commands > 1 {
		op += " +" + strconv.Itoa(commands-1)
	}
	return op
}

// forwardOps finds the op of a forwarded proposal by its number.
type forwardOps func(seq uint64) string

// traceForwardOps lets the trace name this server's forwards: it looks
// each one up among the proposals waiting for their apply. Set once,
// when recording is first asked for; never used while off.
func (n *Node) traceForwardOps() {
	t := n.trace
	if t == nil || t.forwardOp.Load() != nil || n.fsm == nil || n.fsm.waiters == nil {
		return
	}
	w := n.fsm.waiters
	f := forwardOps(func(seq uint64) string {
		// Read under w.mu: the FSM takes the waiter (and applies its
		// Command) only after it.
		w.mu.Lock()
		defer w.mu.Unlock()
		if wt, ok := w.m[seq]; ok && wt.cmd != nil {
			return commandOp(wt.cmd)
		}
		return ""
	})
	t.forwardOp.CompareAndSwap(nil, &f)
}

// opOf returns the op of forward seq, "" when unknown.
func (t *tracer) opOf(seq uint64) string {
	if f := t.forwardOp.Load(); f != nil {
		return (*f)(seq)
	}
	return ""
}

// tracerOps is the part of tracer this file adds.
type tracerOps struct {
	forwardOp atomic.Pointer[forwardOps]
}

// firstCommand is the data of the first transaction entry among entries.
func firstCommand(entries []*raft.Log) []byte {
	for _, e := range entries {
		if e.Type == raft.LogCommand {
			return e.Data
		}
	}
	return nil
}
