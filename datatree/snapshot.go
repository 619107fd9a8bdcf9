package datatree

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/zkraft/zkraft/wire"
)

// Snapshot format: magic, version, then every node in pre-order with
// children sorted by name. A node is: name (the root's is ""), data (null
// kept), ACL reference, czxid, mzxid, pzxid, ctime, mtime, stored
// ephemeralOwner, version, stored cversion, aversion, number of children.
// ACL lists are numbered by first use: a reference equal to the number of
// lists seen so far is followed by the list itself. The encoding is
// therefore canonical: it depends only on the tree's contents. Indexes
// (ephemerals, containers, TTLs), counts and the data size are rebuilt on
// Restore.
const (
	snapMagic   int32 = 0x5a4b4454 // "ZKDT"
	snapVersion int32 = 1
	// minNodeBytes is the smallest encoded node, used to bound counts.
	minNodeBytes = 4 + 4 + 4 + 6*8 + 4*4
)

// ErrBadSnapshot is wrapped by every error Restore reports.
var ErrBadSnapshot = errors.New("datatree: bad snapshot")

// Snapshot writes the whole tree: every node with its data, ACL, stored
// Stat counters (stored cversion, not the served one) and stored
// ephemeralOwner (session id, container or TTL encoding).
func (t *Tree) Snapshot(e *wire.Encoder) {
	t.encodeTree(e, nil) // cannot fail without a writer
}

// encodeTree writes the snapshot into e. With a writer, it hands e's bytes
// to w and empties e whenever they reach flushSize, so e stays small; the
// caller writes what is left at the end. The tree must not change
// meanwhile: it is the walk of a View (view_walk.go) that nothing changes.
func (t *Tree) encodeTree(e *wire.Encoder, w io.Writer) error {
	return t.frozenView().write(e, w, nil)
}

// Restore reads a tree written by Snapshot. cfg must be the Config the
// replicas run with (it decides how TTL owner encodings are read).
func Restore(d *wire.Decoder, cfg Config) (*Tree, error) {
	if d.Int() != snapMagic || d.Int() != snapVersion {
		return nil, snapErr(d, "bad header")
	}
	t := newEmpty(cfg)
	var refs []uint32
	if err := t.restoreNodes(d, &refs); err != nil {
		return nil, err
	}
	return t, nil
}

// snapErr reports the decoder's error if any, else a format error.
func snapErr(d *wire.Decoder, msg string) error {
	if err := d.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSnapshot, err)
	}
	return fmt.Errorf("%w: %s", ErrBadSnapshot, msg)
}

// restoreNodes reads the pre-order node list, rebuilding links, counts and
// indexes without recursion.
func (t *Tree) restoreNodes(d *wire.Decoder, refs *[]uint32) error {
	var scratch []byte
	root, nc, err := t.decodeNode(d, refs, &scratch)
	if err != nil {
		return err
	}
	if len(root.name()) != 0 {
		return snapErr(d, "root has a name")
	}
	t.root = root
	t.count = 1
	t.dataSize = javaLen(rootPath) + int64(root.dataLen())
	// A node's path is built only where it is needed: for its children's,
	// or for the index of containers, TTL nodes and ephemerals. Most nodes
	// are plain leaves, and building each one's path was 8% of a restore.
	type frame struct {
		n       *node
		path    string
		pathLen int64 // javaLen(path)
		left    int
	}
	stack := []frame{{root, "", 0, nc}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.left == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		top.left--
		n, nc, err := t.decodeNode(d, refs, &scratch)
		if err != nil {
			return err
		}
		name := n.name()
		if len(name) == 0 || bytes.IndexByte(name, '/') >= 0 || !top.n.addNewChild(n) {
			return snapErr(d, "bad node name")
		}
		pathLen := top.pathLen + 1 + javaLenBytes(name)
		t.account(n, pathLen)
		indexed := t.indexed(n)
		if nc == 0 && !indexed {
			continue
		}
		path := top.path + "/" + string(name)
		if indexed {
			t.index(path, n)
		}
		if nc > 0 {
			stack = append(stack, frame{n, path, pathLen, nc})
		}
	}
	return nil
}

// decodeNode reads one node and takes a reference on its ACL, interning
// the list when it appears for the first time. The name and the data go
// through scratch, reused from node to node, into the node's one buffer.
func (t *Tree) decodeNode(d *wire.Decoder, refs *[]uint32, scratch *[]byte) (*node, int, error) {
	b := d.AppendString((*scratch)[:0])
	nameLen := uint32(len(b))
	b, null := d.AppendBuffer(b)
	*scratch = b
	if null {
		nameLen |= nullData
	}
	n := &node{buf: make([]byte, len(b)), nameLen: nameLen} // non-nil: data() tells null by nameLen
	copy(n.buf, b)
	ref := d.Int()
	switch {
	case d.Err() != nil:
		return nil, 0, snapErr(d, "")
	case ref >= 0 && int(ref) < len(*refs):
		n.acl = (*refs)[ref]
		t.acls.retain(n.acl)
	case int(ref) == len(*refs):
		acl := wire.DecodeACLs(d)
		if d.Err() != nil || len(acl) == 0 {
			return nil, 0, snapErr(d, "bad ACL")
		}
		n.acl = t.acls.acquire(acl)
		*refs = append(*refs, n.acl)
	default:
		return nil, 0, snapErr(d, "unknown ACL reference")
	}
	var pzxid, owner int64
	var cversion, aversion int32
	n.czxid, n.mzxid, pzxid = d.Long(), d.Long(), d.Long()
	n.ctime, n.mtime, owner = d.Long(), d.Long(), d.Long()
	n.version, cversion, aversion = d.Int(), d.Int(), d.Int()
	n.setPzxid(pzxid)
	n.setOwner(owner)
	n.setCversion(cversion)
	n.setAversion(aversion)
	nc := d.Count(minNodeBytes)
	if d.Err() != nil || nc < 0 {
		return nil, 0, snapErr(d, "bad child count")
	}
	return n, nc, nil
}

// Walk calls fn for every node in pre-order, children sorted by name,
// with the node's path and served Stat.
func (t *Tree) Walk(fn func(path string, st wire.Stat)) {
	t.preorder(func(path string, n *node) error {
		fn(path, n.stat(t.cfg.ExtendedTypesEnabled))
		return nil
	})
}

// preorder calls fn for every node in pre-order, children sorted by name,
// with the node's path ("/" for the root), and stops at fn's first error.
func (t *Tree) preorder(fn func(path string, n *node) error) error {
	type frame struct {
		path string
		n    *node
	}
	stack := []frame{{rootPath, t.root}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if err := fn(f.path, f.n); err != nil {
			return err
		}
		prefix := f.path
		if prefix == rootPath {
			prefix = ""
		}
		kids := sortedChildren(f.n)
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, frame{prefix + "/" + string(kids[i].name()), kids[i]})
		}
	}
	return nil
}
