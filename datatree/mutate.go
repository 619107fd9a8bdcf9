package datatree

// This file holds the only functions that change the tree's structure or a
// node's data. Each records how to revert itself while a multi is applied.
// insert, remove and setData also update quota stats (quota.go) through
// replaceData, which records its own undo.

// undoOp says which primitive an undoRec reverts.
type undoOp uint8

const (
	undoInsert undoOp = iota
	undoRemove
	undoSetData
)

// undoRec is what is needed to revert one primitive exactly.
type undoRec struct {
	op       undoOp
	parent   *node
	n        *node
	name     string
	path     string
	cversion int32 // parent's, before insert
	pzxid    int64 // parent's, before insert/remove
	buf      []byte
	nameLen  uint32
	mzxid    int64
	mtime    int64
	version  int32
}

// record appends r to the undo log when a multi is in progress.
func (t *Tree) record(r undoRec) {
	if t.undo != nil {
		*t.undo = append(*t.undo, r)
	}
}

// insert links n as child name of parent (DataTree.createNode): the
// parent's stored cversion becomes cversion+1 and its pzxid the zxid, but
// only if the new cversion is larger (it is not after int32 overflow).
// n must already be called name.
func (t *Tree) insert(parent *node, name, path string, n *node, zxid int64) {
	t.record(undoRec{op: undoInsert, parent: parent, n: n, name: name, path: path,
		cversion: parent.cversion(), pzxid: parent.pzxid()})
	t.keep(parent)
	if cv := parent.cversion() + 1; cv > parent.cversion() {
		parent.setCversion(cv)
		parent.setPzxid(zxid)
	}
	t.linkChild(parent, n)
	t.attach(path, n)
	t.quotaCreated(path, n)
}

// remove unlinks child name of parent (DataTree.deleteNode): the parent's
// pzxid moves to zxid only if that is larger; its cversion is unchanged.
func (t *Tree) remove(parent *node, name, path string, n *node, zxid int64) {
	t.record(undoRec{op: undoRemove, parent: parent, n: n, name: name, path: path,
		pzxid: parent.pzxid()})
	t.keep(parent)
	t.unlinkChild(parent, name, n)
	if zxid > parent.pzxid() {
		parent.setPzxid(zxid)
	}
	t.detach(path, n)
	t.acls.release(n.acl)
	t.quotaDeleted(path, n.data())
}

// setData replaces n's data (copied) and stamps it (DataTree.setData).
func (t *Tree) setData(path string, n *node, data []byte, version int32, zxid, time int64) {
	t.record(undoRec{op: undoSetData, n: n, path: path,
		buf: n.buf, nameLen: n.nameLen, mzxid: n.mzxid, mtime: n.mtime, version: n.version})
	t.keep(n)
	t.dataSize += int64(len(data)) - int64(n.dataLen())
	old := n.data()
	n.setDataBytes(data)
	n.mzxid = zxid
	n.mtime = time
	n.version = version
	t.quotaDataChanged(path, old, data)
}

// replaceData swaps n's data without stamping it, as ZooKeeper does for
// quota stats nodes. Its undo record restores the same stamps.
func (t *Tree) replaceData(n *node, data []byte) {
	t.record(undoRec{op: undoSetData, n: n,
		buf: n.buf, nameLen: n.nameLen, mzxid: n.mzxid, mtime: n.mtime, version: n.version})
	t.keep(n)
	t.dataSize += int64(len(data)) - int64(n.dataLen())
	n.setDataBytes(data)
}

// attach accounts for a node that became reachable at path.
func (t *Tree) attach(path string, n *node) {
	t.account(n, javaLen(path))
	t.index(path, n)
}

// account counts a node whose path is pathLen Java characters long.
func (t *Tree) account(n *node, pathLen int64) {
	t.count++
	t.maxCzxid = max(t.maxCzxid, n.czxid)
	t.dataSize += pathLen + int64(n.dataLen())
}

// indexed reports whether index records n: it is a container, a TTL
// node or an ephemeral.
func (t *Tree) indexed(n *node) bool {
	return ownerKind(n.owner(), t.cfg.ExtendedTypesEnabled) != kindPersistent
}

// index records a container, TTL node or ephemeral n at path.
func (t *Tree) index(path string, n *node) {
	owner := n.owner()
	switch ownerKind(owner, t.cfg.ExtendedTypesEnabled) {
	case kindContainer:
		t.containers[path] = struct{}{}
	case kindTTL:
		t.ttls[path] = struct{}{}
	case kindEphemeral:
		set := t.ephemerals[owner]
		if set == nil {
			set = make(map[string]struct{})
			t.ephemerals[owner] = set
		}
		set[path] = struct{}{}
	}
}

// detach is the inverse of attach.
func (t *Tree) detach(path string, n *node) {
	t.count--
	t.dataSize -= javaLen(path) + int64(n.dataLen())
	owner := n.owner()
	switch ownerKind(owner, t.cfg.ExtendedTypesEnabled) {
	case kindContainer:
		delete(t.containers, path)
	case kindTTL:
		delete(t.ttls, path)
	case kindEphemeral:
		if set := t.ephemerals[owner]; set != nil {
			delete(set, path)
			if len(set) == 0 {
				delete(t.ephemerals, owner)
			}
		}
	}
}

// rollback reverts the recorded primitives in reverse order.
func (t *Tree) rollback(log []undoRec) {
	for i := len(log) - 1; i >= 0; i-- {
		r := &log[i]
		switch r.op {
		case undoInsert:
			t.keep(r.parent)
			t.unlinkChild(r.parent, r.name, r.n)
			r.parent.setCversion(r.cversion)
			r.parent.setPzxid(r.pzxid)
			r.parent.dropDefaultExt()
			t.detach(r.path, r.n)
			t.acls.release(r.n.acl)
		case undoRemove:
			t.keep(r.parent)
			t.linkChild(r.parent, r.n)
			r.parent.setPzxid(r.pzxid)
			t.attach(r.path, r.n)
			t.acls.retain(r.n.acl)
		case undoSetData:
			t.keep(r.n)
			t.dataSize -= int64(r.n.dataLen())
			r.n.setBuf(r.buf, r.nameLen)
			t.dataSize += int64(r.n.dataLen())
			r.n.mzxid = r.mzxid
			r.n.mtime = r.mtime
			r.n.version = r.version
		}
	}
}
