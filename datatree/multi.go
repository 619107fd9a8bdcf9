package datatree

import (
	"errors"

	"github.com/zkraft/zkraft/wire"
)

// multiOpOK reports whether op may appear in a write multi with a body of
// the right type (MultiOperationRecord accepts create, create2,
// createContainer, createTTL, delete, setData and check).
func multiOpOK(op wire.MultiOp) bool {
	switch op.Type {
	case wire.OpCreate, wire.OpCreate2, wire.OpCreateContainer:
		_, ok := op.Record.(*wire.CreateRequest)
		return ok
	case wire.OpCreateTTL:
		_, ok := op.Record.(*wire.CreateTTLRequest)
		return ok
	case wire.OpDelete:
		_, ok := op.Record.(*wire.DeleteRequest)
		return ok
	case wire.OpSetData:
		_, ok := op.Record.(*wire.SetDataRequest)
		return ok
	case wire.OpCheck:
		_, ok := op.Record.(*wire.CheckVersionRequest)
		return ok
	}
	return false
}

// maxKeptUndo is the most undo records whose storage a tree keeps
// between multis; maxPresizedEvents bounds the events a multi's slice is
// made for before any op ran (a request of many cheap ops does not make
// the server allocate ahead of what they fire).
const (
	maxKeptUndo       = 1024
	maxPresizedEvents = 4096
)

// applyMulti applies the ops in order, each seeing the effects of the
// earlier ones, all with the txn's zxid and time. On the first failure
// every change is undone and the result lists ZooKeeper's error results.
// An op that may not appear in a multi is MARSHALLINGERROR for the whole
// request, as ZooKeeper fails to deserialise it.
func (t *Tree) applyMulti(txn *Txn, req *wire.MultiRequest) Result {
	for _, op := range req.Ops {
		if !multiOpOK(op) {
			return Result{Err: wire.CodeMarshallingError}
		}
	}
	log := t.undoBuf[:0]
	t.undo = &log
	defer func() {
		// Keep the storage for the next multi, without the nodes and
		// strings it points to (a huge multi's is not kept).
		clear(log)
		if cap(log) <= maxKeptUndo {
			t.undoBuf = log[:0]
		}
		t.undo = nil
	}()
	// Most ops fire two events (a create or delete: the node's and its
	// parent's children): sized for that, up to a bound, the slice is not
	// regrown through a multi of many creates.
	ev := make([]Event, 0, min(2*len(req.Ops), maxPresizedEvents))
	var results []wire.MultiResult
	if !txn.Unanswered {
		results = make([]wire.MultiResult, len(req.Ops))
	}
	for i, op := range req.Ops {
		typ := effectiveOp(op)
		out, err := t.applyOp(txn, typ, op.Record, &ev)
		if errors.Is(err, errNullID) {
			t.rollback(log)
			return Result{Err: wire.CodeMarshallingError}
		}
		if err != nil {
			t.rollback(log)
			return Result{Multi: failedMulti(len(req.Ops), i, wire.CodeOf(err))}
		}
		if results != nil {
			results[i] = successResult(typ, out)
		}
	}
	return Result{Multi: results, Events: ev}
}

// effectiveOp is the operation a multi sub-op performs. ZooKeeper rebuilds
// create sub-ops from their flags whatever header type they were sent with:
// flag 4 makes a container, anything else a plain create, so a create2
// sub-op answers with a path-only create result.
func effectiveOp(op wire.MultiOp) wire.Op {
	switch op.Type {
	case wire.OpCreate, wire.OpCreate2, wire.OpCreateContainer:
		if op.Record.(*wire.CreateRequest).Flags == wire.FlagContainer {
			return wire.OpCreateContainer
		}
		return wire.OpCreate
	}
	return op.Type
}

// successResult is the OpResult ZooKeeper returns for a successful op.
func successResult(op wire.Op, out opOut) wire.MultiResult {
	switch op {
	case wire.OpCreate:
		return wire.MultiResult{Type: wire.OpCreate, Path: out.path}
	case wire.OpCreate2, wire.OpCreateContainer, wire.OpCreateTTL:
		return wire.MultiResult{Type: wire.OpCreate2, Path: out.path, Stat: out.stat}
	case wire.OpSetData:
		return wire.MultiResult{Type: wire.OpSetData, Stat: out.stat}
	}
	return wire.MultiResult{Type: op}
}

// failedMulti builds the results of a multi whose op failed failed with
// code: error results with 0 before it, code for it and
// RUNTIMEINCONSISTENCY after it.
func failedMulti(n, failed int, code wire.Code) []wire.MultiResult {
	out := make([]wire.MultiResult, n)
	for i := range out {
		c := wire.CodeOK
		switch {
		case i == failed:
			c = code
		case i > failed:
			c = wire.CodeRuntimeInconsistency
		}
		out[i] = wire.MultiResult{Type: wire.OpError, Err: c}
	}
	return out
}
