package datatree

import (
	"errors"
	"fmt"

	"github.com/zkraft/zkraft/wire"
)

// ErrUnknownOp is reported by Txn.Decode for an opcode without a known body.
var ErrUnknownOp = errors.New("datatree: unknown txn op")

// Txn is one replicated transaction as stored in the Raft log.
type Txn struct {
	// Zxid is assigned by the consensus layer just before Apply; it is not
	// encoded.
	Zxid int64
	// Time is the proposal time in ms since the epoch, stamped by the
	// proposing server; it becomes ctime/mtime.
	Time int64
	// Session is the session that issued the txn (0 for server-internal
	// txns such as deleteContainer). It owns the ephemerals it creates.
	Session int64
	// Auth holds the identities of the issuing connection at proposal time
	// (digest and ip ids, and {Scheme: "super"} for a super user).
	Auth []wire.Id
	// Op is the opcode; it decides the type of Body.
	Op wire.Op
	// Body is the request record: *wire.CreateRequest for create, create2
	// and createContainer, *wire.CreateTTLRequest, *wire.DeleteRequest,
	// *wire.SetDataRequest, *wire.SetACLRequest, *wire.MultiRequest or
	// *wire.DeleteContainerRequest; nil for ops without a body
	// (closeSession).
	Body wire.Record
	// Unanswered says that no client waits for this txn's result (a
	// follower applying another server's write, or a restart replaying
	// its log): a successful multi's Result then carries no per-op
	// results, the bulk of what it allocates. Not encoded.
	Unanswered bool
}

// Encode writes Time, Session, Auth (a vector of Id; nil as -1), Op and
// then the body record, which comes last because some bodies (the raw path
// of deleteContainer) run to the end of the buffer.
func (t *Txn) Encode(e *wire.Encoder) {
	e.Long(t.Time)
	e.Long(t.Session)
	if t.Auth == nil {
		e.Int(-1)
	} else {
		e.Int(int32(len(t.Auth)))
		for i := range t.Auth {
			t.Auth[i].Encode(e)
		}
	}
	e.Int(int32(t.Op))
	if t.Body != nil {
		t.Body.Encode(e)
	}
}

// Decode mirrors Encode. The body type comes from wire.RequestForOp; an op
// it does not know fails the decoder with ErrUnknownOp.
func (t *Txn) Decode(d *wire.Decoder) {
	t.Time = d.Long()
	t.Session = d.Long()
	t.Auth = nil
	if n := d.Count(8); n >= 0 && d.Err() == nil {
		t.Auth = make([]wire.Id, 0, d.Prealloc(n, 8))
		for i := 0; i < n && d.Err() == nil; i++ {
			var id wire.Id
			id.Decode(d)
			t.Auth = append(t.Auth, id)
		}
	}
	t.Op = wire.Op(d.Int())
	t.Body = nil
	if d.Err() != nil {
		return
	}
	rec, ok := wire.RequestForOp(t.Op)
	if !ok {
		d.Fail(fmt.Errorf("%w %d", ErrUnknownOp, int32(t.Op)))
		return
	}
	if rec != nil {
		rec.Decode(d)
		t.Body = rec
	}
}

// Event is a watch event fired by a write. The server maps it to its watch
// tables (NodeCreated/NodeDataChanged to data watches, NodeChildrenChanged
// to child watches of the parent, NodeDeleted to both).
type Event struct {
	// Type is NodeCreated, NodeDeleted, NodeDataChanged or
	// NodeChildrenChanged.
	Type wire.EventType
	// Path is the node the event is about ("/" for the root).
	Path string
	// ACL is the ACL of the node at Path when the event fired (for a
	// delete, the deleted node's). The server delivers the event only to
	// connections that may READ under it, as ZooKeeper does since the
	// fix for CVE-2024-23944 (in Debian's 3.8.0 too).
	ACL []wire.ACL
}

// Result is the outcome of applying one Txn.
type Result struct {
	// Err is nil or a wire.Code. It stays nil for multi, whose per-op
	// outcome is in Multi (the reply header error of a multi is 0).
	Err error
	// Path is the created path of the create variants (with any sequence
	// suffix).
	Path string
	// Stat is the served Stat of the created or changed node (create
	// variants, setData, setACL).
	Stat wire.Stat
	// Multi holds the per-op results of a multi: success results, or
	// ZooKeeper's failure results (0 before the failing op, its code, then
	// RUNTIMEINCONSISTENCY).
	Multi []wire.MultiResult
	// Events are the watch events fired, in order.
	Events []Event
}
