package datatree

import (
	"fmt"
	"strings"

	"github.com/zkraft/zkraft/wire"
)

// createArgs are the fields shared by CreateRequest and CreateTTLRequest;
// ttl is -1 for the opcodes without one, as in PrepRequestProcessor.
type createArgs struct {
	path  string
	data  []byte
	acl   []wire.ACL
	flags int32
	ttl   int64
}

// isEphemeralFlag is CreateMode.isEphemeral (EPHEMERAL, EPHEMERAL_SEQUENTIAL).
func isEphemeralFlag(f int32) bool {
	return f == wire.FlagEphemeral || f == wire.FlagEphemeralSequential
}

// isSequentialFlag is CreateMode.isSequential.
func isSequentialFlag(f int32) bool {
	return f == wire.FlagPersistentSequential || f == wire.FlagEphemeralSequential ||
		f == wire.FlagPersistentSequentialWithTTL
}

// isTTLFlag is CreateMode.isTTL.
func isTTLFlag(f int32) bool {
	return f == wire.FlagPersistentWithTTL || f == wire.FlagPersistentSequentialWithTTL
}

// create implements create, create2, createContainer and createTTL with
// pRequest2TxnCreate's validation order:
//
//	flags (BADARGUMENTS) → TTL flag while extended types are off
//	(UNIMPLEMENTED) → TTL value/mode (BADARGUMENTS) → ephemeral without a
//	session (SESSIONEXPIRED) → path has '/' and no NUL (BADARGUMENTS) →
//	ACL fixup (INVALIDACL) → parent exists (NONODE) → CREATE on parent
//	(NOAUTH) → sequence suffix → full path validation (BADARGUMENTS) →
//	node exists (NODEEXISTS) → parent is a normal ephemeral
//	(NOCHILDRENFOREPHEMERALS).
//
// The node type comes from the opcode (container for createContainer, TTL
// for createTTL); flags only add ephemeral/sequential, so flag 4 via
// create/create2 makes a plain persistent node.
func (t *Tree) create(txn *Txn, op wire.Op, a createArgs, ev *[]Event) (opOut, error) {
	if err := t.checkCreateMode(txn, op, a); err != nil {
		return opOut{}, err
	}
	parentPath, _, ok := splitPath(a.path)
	if !ok || strings.IndexByte(a.path, 0) >= 0 {
		return opOut{}, wire.CodeBadArguments
	}
	acl, err := t.schemes.fixupACL(a.acl, txn.Auth)
	if err != nil {
		return opOut{}, err
	}
	parent, err := t.get(parentPath)
	if err != nil {
		return opOut{}, err
	}
	if err := t.schemes.checkACL(t.acls.get(parent.acl), wire.PermCreate, txn.Auth); err != nil {
		return opOut{}, err
	}
	path := a.path
	if isSequentialFlag(a.flags) {
		path += fmt.Sprintf("%010d", parent.cversion())
	}
	if err := ValidatePath(path); err != nil {
		return opOut{}, err
	}
	_, name, _ := splitPath(path)
	if name == "" || parent.child(name) != nil { // name is "" only for "/"
		return opOut{}, wire.CodeNodeExists
	}
	if ownerKind(parent.owner(), t.cfg.ExtendedTypesEnabled) == kindEphemeral {
		return opOut{}, wire.CodeNoChildrenForEphemerals
	}
	n := newNode(name, a.data, t.acls.acquire(acl), txn.Zxid, txn.Time)
	n.setOwner(t.ownerFor(txn, op, a))
	t.insert(parent, name, path, n, txn.Zxid)
	*ev = append(*ev,
		Event{Type: wire.EventNodeCreated, Path: path, ACL: t.acls.get(n.acl)},
		Event{Type: wire.EventNodeChildrenChanged, Path: eventPath(parentPath), ACL: t.acls.get(parent.acl)})
	return opOut{path: path, stat: n.stat(t.cfg.ExtendedTypesEnabled)}, nil
}

// checkCreateMode is CreateMode.fromFlag plus validateCreateRequest.
// ZooKeeper accepts createTTL with a non-TTL flag and a negative ttl in
// prep and then fails while applying it; here it is BADARGUMENTS.
func (t *Tree) checkCreateMode(txn *Txn, op wire.Op, a createArgs) error {
	if a.flags < 0 || a.flags > 6 {
		return wire.CodeBadArguments
	}
	if isTTLFlag(a.flags) {
		if !t.cfg.ExtendedTypesEnabled {
			return wire.CodeUnimplemented
		}
		if a.ttl <= 0 || a.ttl > MaxTTL {
			return wire.CodeBadArguments
		}
	} else if a.ttl >= 0 || op == wire.OpCreateTTL {
		return wire.CodeBadArguments
	}
	if isEphemeralFlag(a.flags) && txn.Session == 0 {
		return wire.CodeSessionExpired
	}
	return nil
}

// ownerFor picks the stored ephemeralOwner: the opcode decides container
// and TTL nodes, the flags decide normal ephemerals.
func (t *Tree) ownerFor(txn *Txn, op wire.Op, a createArgs) int64 {
	switch {
	case op == wire.OpCreateContainer:
		return containerOwner
	case op == wire.OpCreateTTL:
		return ttlOwner(a.ttl)
	case isEphemeralFlag(a.flags):
		return txn.Session
	}
	return 0
}
