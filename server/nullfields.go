package server

import (
	"github.com/zkraft/zkraft/wire"
)

// A null string (jute length -1) decodes as "", but ZooKeeper 3.8 keeps it
// as Java's null, and where it then calls a method on it the request fails
// with MARSHALLINGERROR (the catch-all for exceptions that are not
// KeeperExceptions) rather than being answered as for "" (the data of "/",
// or BADARGUMENTS). This file holds those cases; the ones where ZooKeeper
// checks the null itself (setData and setACL: BADARGUMENTS, as for "") or
// never dereferences it (sync, addWatch, removeWatches, getEphemerals) need
// nothing here (sync echoes the null path, as ZooKeeper: readSync).

// nullPathFails lists the opcodes whose request starts with a path that
// ZooKeeper dereferences before it checks it. Reads fail without a zxid;
// writes fail in prep after they got one, so they are logged as an error
// entry, like a write that cannot be decoded.
var nullPathFails = map[wire.Op]bool{
	wire.OpExists:               true,
	wire.OpGetData:              true,
	wire.OpGetACL:               true,
	wire.OpGetChildren:          true,
	wire.OpGetChildren2:         true,
	wire.OpGetAllChildrenNumber: true,
	wire.OpCheckWatches:         true,
	wire.OpCreate:               true,
	wire.OpCreate2:              true,
	wire.OpCreateContainer:      true,
	wire.OpCreateTTL:            true,
	wire.OpDelete:               true,
}

// errNullField is the outcome of a request ZooKeeper fails on a null field.
var errNullField error = wire.CodeMarshallingError

// replyError is a failure answered with a body, as ZooKeeper sends the
// response record it had built when the exception hit.
type replyError struct {
	code wire.Code
	body wire.Record
}

func (e *replyError) Error() string { return e.code.Error() }
func (e *replyError) Unwrap() error { return e.code }

// nullFieldErr returns how ZooKeeper fails a decoded request because of a
// null field, or nil. nullPath tells whether the request's first field (its
// path, for every opcode in nullPathFails) was null. A multi with a null
// path in any op fails while ZooKeeper gathers the ops' pending changes,
// before it assigns a zxid, and is answered with an empty multi response;
// a multiRead fails at its null op (readMulti).
func nullFieldErr(op wire.Op, rec wire.Record, nullPath bool) error {
	if nullPath && nullPathFails[op] {
		return errNullField
	}
	if m, ok := rec.(*wire.MultiRequest); ok && op == wire.OpMulti {
		if _, null := m.NullPathOp(); null {
			return &replyError{code: wire.CodeMarshallingError, body: &wire.MultiResponse{}}
		}
	}
	return nil
}
