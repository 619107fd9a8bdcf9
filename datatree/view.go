package datatree

// A View is the tree frozen at the moment Freeze was called, which can be
// written as a snapshot (View.WriteTo) while transactions go on being
// applied to the tree. It is exact, not fuzzy: its snapshot has the same
// bytes that Tree.WriteSnapshot would have written at the moment of Freeze.
//
// Nothing is copied when the view is taken. Instead, while it is open,
// every change to the tree first records what the view needs to see past
// it:
//
//   - saved holds, for each node whose fields (data, stamps, counters, ACL)
//     change after Freeze, a copy of them as they were at Freeze, taken
//     before the first such change (keep);
//   - kids holds, for each node whose set of children changes, the children
//     linked since Freeze (+1) and those unlinked since (-1); a child linked
//     and unlinked again cancels out (noteChild). A child created after
//     Freeze needs no entry: its czxid is above z, the largest czxid in the
//     tree at Freeze, which is how the view tells it apart. The view's
//     children of a node are therefore its live children with a czxid up
//     to z, minus the +1 entries, plus the -1 entries;
//   - ACL lists whose last reference goes away are not freed until every
//     view is closed (Tree.flushACLs), so an ACL index a view holds keeps
//     naming the same list.
//
// A node's name never changes, and the bytes of a name+data buffer are never
// modified once stored (setData installs a new buffer), so the walker may
// compare names it picked up under the lock after releasing it.
//
// Only changes made while the view is open cost anything: a map entry per
// changed node and per changed child set, dropped on Close. No field is
// added to the nodes themselves. A bulk load of new znodes during a walk
// costs the view one saved entry per parent, not one per znode: entries
// per child created, in maps growing in step under every parent, held up
// the applies of a 10M-znode fill (docs/scale.md).
type View struct {
	t      *Tree
	root   *node
	saved  map[*node]frozen
	kids   map[*node]map[*node]int8
	z      int64 // the tree's maxCzxid at Freeze
	closed bool
}

// frozen is a node's encoded fields, as a view sees them.
type frozen struct {
	buf      []byte
	owner    int64
	czxid    int64
	mzxid    int64
	pzxid    int64
	ctime    int64
	mtime    int64
	nameLen  uint32
	acl      uint32
	version  int32
	cversion int32
	aversion int32
}

// freezeNode copies n's encoded fields.
func freezeNode(n *node) frozen {
	return frozen{
		buf: n.buf, owner: n.owner(), czxid: n.czxid, mzxid: n.mzxid,
		pzxid: n.pzxid(), ctime: n.ctime, mtime: n.mtime, nameLen: n.nameLen,
		acl: n.acl, version: n.version, cversion: n.cversion(), aversion: n.aversion(),
	}
}

// name and data are as node.name and node.data.
func (f *frozen) name() []byte {
	k := f.nameLen &^ nullData
	return f.buf[:k:k]
}

func (f *frozen) data() []byte {
	if f.nameLen&nullData != 0 {
		return nil
	}
	k := f.nameLen
	return f.buf[k:len(f.buf):len(f.buf)]
}

// Freeze opens a view of the tree as it is now. The caller must hold the
// tree exclusively (as for Apply), and must Close the view, again holding
// the tree exclusively, once it is written or abandoned: until then every
// change to the tree costs a little bookkeeping.
func (t *Tree) Freeze() *View {
	v := t.frozenView()
	t.views = append(t.views, v)
	return v
}

// frozenView returns a view that is not registered with the tree: valid
// only while the tree does not change (WriteSnapshot under the caller's
// lock).
func (t *Tree) frozenView() *View {
	return &View{t: t, root: t.root, saved: make(map[*node]frozen), kids: make(map[*node]map[*node]int8), z: t.maxCzxid}
}

// Close ends the view; writing it afterwards is an error. It may be called
// more than once. The caller holds the tree exclusively.
func (v *View) Close() {
	if v.closed {
		return
	}
	v.closed = true
	t := v.t
	for i, w := range t.views {
		if w == v {
			t.views = append(t.views[:i], t.views[i+1:]...)
			break
		}
	}
	v.saved, v.kids = nil, nil
	t.flushACLs()
}

// Changed reports how many nodes the view had to save or track changes of
// children for so far (for tests and metrics).
func (v *View) Changed() int { return len(v.saved) + len(v.kids) }

// keep saves n's fields for every open view that has not saved them yet.
// It is called before any change to those fields.
func (t *Tree) keep(n *node) {
	for _, v := range t.views {
		if _, ok := v.saved[n]; !ok {
			v.saved[n] = freezeNode(n)
		}
	}
}

// noteChild records in every open view that c was linked under parent
// (delta +1) or unlinked from it (-1), unless c was created after the
// view was taken (View.sees leaves such a child out without an entry).
func (t *Tree) noteChild(parent, c *node, delta int8) {
	for _, v := range t.views {
		if !v.sees(c) {
			continue
		}
		m := v.kids[parent]
		if m == nil {
			m = make(map[*node]int8)
			v.kids[parent] = m
		}
		if m[c] == -delta {
			delete(m, c)
		} else {
			m[c] = delta
		}
	}
}

// linkChild and unlinkChild are the only ways the tree changes a child set
// after it was built, so that views see every change.
func (t *Tree) linkChild(parent, c *node) {
	t.noteChild(parent, c, +1)
	parent.addChild(c)
}

func (t *Tree) unlinkChild(parent *node, name string, c *node) {
	t.noteChild(parent, c, -1)
	parent.removeChild(name)
}

// flushACLs frees the ACL lists that lost their last reference, unless a
// view is open: it may still name them.
func (t *Tree) flushACLs() {
	if len(t.views) == 0 {
		t.acls.flush()
	}
}
