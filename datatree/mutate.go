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
	data     []byte
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
func (t *Tree) insert(parent *node, name, path string, n *node, zxid int64) {
	t.record(undoRec{op: undoInsert, parent: parent, n: n, name: name, path: path,
		cversion: parent.cversion, pzxid: parent.pzxid})
	if cv := parent.cversion + 1; cv > parent.cversion {
		parent.cversion = cv
		parent.pzxid = zxid
	}
	parent.addChild(name, n)
	t.attach(path, n)
	t.quotaCreated(path, n)
}

// remove unlinks child name of parent (DataTree.deleteNode): the parent's
// pzxid moves to zxid only if that is larger; its cversion is unchanged.
func (t *Tree) remove(parent *node, name, path string, n *node, zxid int64) {
	t.record(undoRec{op: undoRemove, parent: parent, n: n, name: name, path: path,
		pzxid: parent.pzxid})
	parent.removeChild(name)
	if zxid > parent.pzxid {
		parent.pzxid = zxid
	}
	t.detach(path, n)
	t.acls.release(n.acl)
	t.quotaDeleted(path, n.data)
}

// setData replaces n's data and stamps it (DataTree.setData).
func (t *Tree) setData(path string, n *node, data []byte, version int32, zxid, time int64) {
	t.record(undoRec{op: undoSetData, n: n, path: path,
		data: n.data, mzxid: n.mzxid, mtime: n.mtime, version: n.version})
	t.dataSize += int64(len(data)) - int64(len(n.data))
	old := n.data
	n.data = data
	n.mzxid = zxid
	n.mtime = time
	n.version = version
	t.quotaDataChanged(path, old, data)
}

// replaceData swaps n's data without stamping it, as ZooKeeper does for
// quota stats nodes. Its undo record restores the same stamps.
func (t *Tree) replaceData(n *node, data []byte) {
	t.record(undoRec{op: undoSetData, n: n,
		data: n.data, mzxid: n.mzxid, mtime: n.mtime, version: n.version})
	t.dataSize += int64(len(data)) - int64(len(n.data))
	n.data = data
}

// attach accounts for a node that became reachable at path.
func (t *Tree) attach(path string, n *node) {
	t.count++
	t.dataSize += javaLen(path) + int64(len(n.data))
	switch ownerKind(n.owner, t.cfg.ExtendedTypesEnabled) {
	case kindContainer:
		t.containers[path] = struct{}{}
	case kindTTL:
		t.ttls[path] = struct{}{}
	case kindEphemeral:
		set := t.ephemerals[n.owner]
		if set == nil {
			set = make(map[string]struct{})
			t.ephemerals[n.owner] = set
		}
		set[path] = struct{}{}
	}
}

// detach is the inverse of attach.
func (t *Tree) detach(path string, n *node) {
	t.count--
	t.dataSize -= javaLen(path) + int64(len(n.data))
	switch ownerKind(n.owner, t.cfg.ExtendedTypesEnabled) {
	case kindContainer:
		delete(t.containers, path)
	case kindTTL:
		delete(t.ttls, path)
	case kindEphemeral:
		if set := t.ephemerals[n.owner]; set != nil {
			delete(set, path)
			if len(set) == 0 {
				delete(t.ephemerals, n.owner)
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
			r.parent.removeChild(r.name)
			r.parent.cversion = r.cversion
			r.parent.pzxid = r.pzxid
			t.detach(r.path, r.n)
			t.acls.release(r.n.acl)
		case undoRemove:
			r.parent.addChild(r.name, r.n)
			r.parent.pzxid = r.pzxid
			t.attach(r.path, r.n)
			t.acls.retain(r.n.acl)
		case undoSetData:
			t.dataSize += int64(len(r.data)) - int64(len(r.n.data))
			r.n.data = r.data
			r.n.mzxid = r.mzxid
			r.n.mtime = r.mtime
			r.n.version = r.version
		}
	}
}
