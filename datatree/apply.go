package datatree

import (
	"strings"

	"github.com/zkraft/zkraft/wire"
)

// opOut is what a successful single op reports.
type opOut struct {
	path string
	stat wire.Stat
}

// Apply applies one transaction. Validation happens here, in ZooKeeper's
// PrepRequestProcessor order, against the current tree; a failed op leaves
// the tree unchanged and reports its wire.Code in Result.Err (for multi, in
// Result.Multi). Supported ops: create, create2, createContainer,
// createTTL, delete, setData, setACL, multi, deleteContainer and
// closeSession (same as KillSession(txn.Session, txn.Zxid)). A top-level
// check is UNIMPLEMENTED, an unknown op UNIMPLEMENTED, and a body of the
// wrong type MARSHALLINGERROR.
//
// The data slices in txn.Body are copied (into the node's name+data
// buffer); the tree keeps no reference to them.
func (t *Tree) Apply(txn *Txn) Result {
	defer t.flushACLs()
	if txn == nil {
		return Result{Err: wire.CodeMarshallingError}
	}
	switch txn.Op {
	case wire.OpMulti:
		req, ok := txn.Body.(*wire.MultiRequest)
		if !ok {
			return Result{Err: wire.CodeMarshallingError}
		}
		return t.applyMulti(txn, req)
	case wire.OpCloseSession:
		return Result{Events: t.killSession(txn.Session, txn.Zxid)}
	case wire.OpCheck:
		return Result{Err: wire.CodeUnimplemented}
	}
	var ev []Event
	out, err := t.applyOp(txn, txn.Op, txn.Body, &ev)
	if err != nil {
		return Result{Err: err}
	}
	return Result{Path: out.path, Stat: out.stat, Events: ev}
}

// applyOp validates and applies one op, appending its events to ev.
func (t *Tree) applyOp(txn *Txn, op wire.Op, body wire.Record, ev *[]Event) (opOut, error) {
	switch op {
	case wire.OpCreate, wire.OpCreate2, wire.OpCreateContainer:
		if r, ok := body.(*wire.CreateRequest); ok {
			return t.create(txn, op, createArgs{r.Path, r.Data, r.ACL, r.Flags, -1}, ev)
		}
	case wire.OpCreateTTL:
		if r, ok := body.(*wire.CreateTTLRequest); ok {
			return t.create(txn, op, createArgs{r.Path, r.Data, r.ACL, r.Flags, r.TTL}, ev)
		}
	case wire.OpDelete:
		if r, ok := body.(*wire.DeleteRequest); ok {
			return opOut{}, t.delete(txn, r.Path, r.Version, ev)
		}
	case wire.OpSetData:
		if r, ok := body.(*wire.SetDataRequest); ok {
			return t.setDataOp(txn, r, ev)
		}
	case wire.OpSetACL:
		if r, ok := body.(*wire.SetACLRequest); ok {
			return t.setACL(txn, r)
		}
	case wire.OpCheck:
		if r, ok := body.(*wire.CheckVersionRequest); ok {
			return opOut{}, t.check(txn, r)
		}
	case wire.OpDeleteContainer:
		if r, ok := body.(*wire.DeleteContainerRequest); ok {
			return opOut{}, t.deleteContainer(txn, r.Path, ev)
		}
	default:
		return opOut{}, wire.CodeUnimplemented
	}
	return opOut{}, wire.CodeMarshallingError
}

// versionOK is checkAndIncVersion's test: -1 matches any version.
func versionOK(expected, current int32) bool { return expected == -1 || expected == current }

// parentForDelete is getParentPathAndValidate: a path without '/', with a
// NUL, or one of the built-in paths is BADARGUMENTS.
func parentForDelete(path string) (parent, name string, err error) {
	parent, name, ok := splitPath(path)
	if !ok || strings.IndexByte(path, 0) >= 0 || isSpecialPath(path) {
		return "", "", wire.CodeBadArguments
	}
	return parent, name, nil
}

// delete: special path (BADARGUMENTS) → parent exists (NONODE) → DELETE on
// parent (NOAUTH) → node exists (NONODE) → version (BADVERSION) → no
// children (NOTEMPTY).
func (t *Tree) delete(txn *Txn, path string, version int32, ev *[]Event) error {
	parentPath, name, err := parentForDelete(path)
	if err != nil {
		return err
	}
	parent, err := t.get(parentPath)
	if err != nil {
		return err
	}
	if err := t.schemes.checkACL(t.acls.get(parent.acl), wire.PermDelete, txn.Auth); err != nil {
		return err
	}
	n := parent.child(name)
	if n == nil {
		return wire.CodeNoNode
	}
	if !versionOK(version, n.version) {
		return wire.CodeBadVersion
	}
	if n.numChildren() > 0 {
		return wire.CodeNotEmpty
	}
	t.removeNode(parent, parentPath, name, path, n, txn.Zxid, ev)
	return nil
}

// removeNode deletes a validated node and fires NodeDeleted and the
// parent's NodeChildrenChanged.
func (t *Tree) removeNode(parent *node, parentPath, name, path string, n *node, zxid int64, ev *[]Event) {
	acl, parentACL := t.acls.get(n.acl), t.acls.get(parent.acl)
	t.remove(parent, name, path, n, zxid)
	*ev = append(*ev,
		Event{Type: wire.EventNodeDeleted, Path: path, ACL: acl},
		Event{Type: wire.EventNodeChildrenChanged, Path: eventPath(parentPath), ACL: parentACL})
}

// deleteContainer is the reaper's delete: special path (BADARGUMENTS) →
// node exists (NONODE) → no children (NOTEMPTY) → not a normal ephemeral
// (BADVERSION). There is no ACL or version check; like ZooKeeper it also
// deletes an empty plain persistent node.
func (t *Tree) deleteContainer(txn *Txn, path string, ev *[]Event) error {
	parentPath, name, err := parentForDelete(path)
	if err != nil {
		return err
	}
	n, err := t.get(path)
	if err != nil {
		return err
	}
	if n.numChildren() > 0 {
		return wire.CodeNotEmpty
	}
	if ownerKind(n.owner(), t.cfg.ExtendedTypesEnabled) == kindEphemeral {
		return wire.CodeBadVersion
	}
	parent, err := t.get(parentPath)
	if err != nil {
		return err
	}
	t.removeNode(parent, parentPath, name, path, n, txn.Zxid, ev)
	return nil
}

// setDataOp: path valid (BADARGUMENTS) → exists (NONODE) → WRITE (NOAUTH)
// → version (BADVERSION). The version always increments, even for
// identical data.
func (t *Tree) setDataOp(txn *Txn, r *wire.SetDataRequest, ev *[]Event) (opOut, error) {
	n, err := t.checkedNode(txn, r.Path, wire.PermWrite)
	if err != nil {
		return opOut{}, err
	}
	if !versionOK(r.Version, n.version) {
		return opOut{}, wire.CodeBadVersion
	}
	t.setData(r.Path, n, r.Data, n.version+1, txn.Zxid, txn.Time)
	*ev = append(*ev, Event{Type: wire.EventNodeDataChanged, Path: r.Path, ACL: t.acls.get(n.acl)})
	return opOut{stat: n.stat(t.cfg.ExtendedTypesEnabled)}, nil
}

// checkedNode validates path, finds the node (NONODE) and checks perm on it
// (NOAUTH), in that order.
func (t *Tree) checkedNode(txn *Txn, path string, perm int32) (*node, error) {
	if err := ValidatePath(path); err != nil {
		return nil, err
	}
	n, err := t.get(path)
	if err != nil {
		return nil, err
	}
	if err := t.schemes.checkACL(t.acls.get(n.acl), perm, txn.Auth); err != nil {
		return nil, err
	}
	return n, nil
}

// setACL: path valid (BADARGUMENTS) → ACL fixup (INVALIDACL) → exists
// (NONODE) → ADMIN (NOAUTH) → aversion (BADVERSION). Only aversion
// changes. setACL is never part of a multi, so it records no undo.
func (t *Tree) setACL(txn *Txn, r *wire.SetACLRequest) (opOut, error) {
	if err := ValidatePath(r.Path); err != nil {
		return opOut{}, err
	}
	acl, err := t.schemes.fixupACL(r.ACL, txn.Auth)
	if err != nil {
		return opOut{}, err
	}
	n, err := t.get(r.Path)
	if err != nil {
		return opOut{}, err
	}
	if err := t.schemes.checkACL(t.acls.get(n.acl), wire.PermAdmin, txn.Auth); err != nil {
		return opOut{}, err
	}
	if !versionOK(r.Version, n.aversion()) {
		return opOut{}, wire.CodeBadVersion
	}
	t.keep(n)
	n.setAversion(n.aversion() + 1)
	old := n.acl
	n.acl = t.acls.acquire(acl)
	t.acls.release(old)
	return opOut{stat: n.stat(t.cfg.ExtendedTypesEnabled)}, nil
}

// check is the multi-only version assertion: path valid (BADARGUMENTS) →
// exists (NONODE) → READ (NOAUTH) → version (BADVERSION).
func (t *Tree) check(txn *Txn, r *wire.CheckVersionRequest) error {
	n, err := t.checkedNode(txn, r.Path, wire.PermRead)
	if err != nil {
		return err
	}
	if !versionOK(r.Version, n.version) {
		return wire.CodeBadVersion
	}
	return nil
}
