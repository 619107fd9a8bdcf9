package datatree

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zkraft/zkraft/wire"
)

// StoredNode is a znode as ZooKeeper persists it (DataNode with its
// StatPersisted): what an import from, or an export to, another format
// carries per node. Cversion and EphemeralOwner are the stored values, not
// the served ones: Cversion counts the child creates ever performed (the
// served cversion is 2*Cversion-numChildren, and a sequential child's
// suffix is the parent's Cversion), EphemeralOwner is a session id, the
// container marker or a TTL encoding.
type StoredNode struct {
	// Data is nil for data created as null, which is kept apart from
	// empty data.
	Data []byte
	// ACL is the node's list. From WalkStored it is shared by every node
	// with the same list (the same slice): do not modify it.
	ACL            []wire.ACL
	Czxid          int64
	Mzxid          int64
	Pzxid          int64
	Ctime          int64
	Mtime          int64
	Version        int32
	Cversion       int32
	Aversion       int32
	EphemeralOwner int64
}

// ErrBadStoredNode is wrapped by Builder.Add's errors.
var ErrBadStoredNode = errors.New("datatree: bad stored node")

// Builder builds a tree from stored nodes, parents before their children,
// as an import reads them from a snapshot of another format. It applies no
// transaction rule: every stored field is taken as given.
type Builder struct {
	t *Tree
}

// NewBuilder starts a tree whose root is root.
func NewBuilder(cfg Config, root StoredNode) *Builder {
	t := newEmpty(cfg)
	t.root = &node{}
	t.setStored(t.root, "", root)
	t.count = 1
	t.dataSize = javaLen(rootPath) + int64(t.root.dataLen())
	return &Builder{t: t}
}

// Add adds the node at path. Its parent must have been added, and path
// must not have been.
func (b *Builder) Add(path string, sn StoredNode) error {
	parentPath, name, ok := splitPath(path)
	if !ok || name == "" || path[0] != '/' || strings.IndexByte(path, 0) >= 0 {
		return fmt.Errorf("%w: path %q", ErrBadStoredNode, path)
	}
	parent := b.t.lookup(parentPath)
	if parent == nil {
		return fmt.Errorf("%w: %s has no parent", ErrBadStoredNode, path)
	}
	if parent.child(name) != nil {
		return fmt.Errorf("%w: %s twice", ErrBadStoredNode, path)
	}
	n := &node{}
	b.t.setStored(n, name, sn)
	parent.addChild(n)
	b.t.attach(path, n)
	return nil
}

// Finish returns the tree. The built-in nodes a ZooKeeper tree always has
// (/zookeeper, /zookeeper/quota, /zookeeper/config) are added as New makes
// them if missing, and every quota's stats node is recounted from the tree,
// as ZooKeeper does whenever it loads a snapshot (DataTree.setupQuota).
// The Builder must not be used afterwards.
func (b *Builder) Finish() *Tree {
	t := b.t
	b.t = nil
	proc := t.lookup(procPath)
	if proc == nil {
		proc = t.link(t.root, procPath, t.acls.acquire(wire.OpenACLUnsafe))
	}
	if proc.child("quota") == nil {
		t.link(proc, quotaPath, t.acls.acquire(wire.OpenACLUnsafe))
	}
	if proc.child("config") == nil {
		t.link(proc, configPath, t.acls.acquire(wire.ReadACLUnsafe)).setAversion(-1)
	}
	t.recountQuotas()
	t.flushACLs()
	return t
}

// setStored fills n from sn (the data is copied) and interns its ACL.
func (t *Tree) setStored(n *node, name string, sn StoredNode) {
	n.buf, n.nameLen = newBuf(name, sn.Data)
	n.acl = t.acls.acquire(sn.ACL)
	n.czxid, n.mzxid, n.ctime, n.mtime, n.version = sn.Czxid, sn.Mzxid, sn.Ctime, sn.Mtime, sn.Version
	n.setPzxid(sn.Pzxid)
	n.setCversion(sn.Cversion)
	n.setAversion(sn.Aversion)
	n.setOwner(sn.EphemeralOwner)
}

// stored returns n's stored form; its ACL is the interned slice.
func (t *Tree) stored(n *node) StoredNode {
	return StoredNode{
		Data: n.data(), ACL: t.acls.get(n.acl),
		Czxid: n.czxid, Mzxid: n.mzxid, Pzxid: n.pzxid(), Ctime: n.ctime, Mtime: n.mtime,
		Version: n.version, Cversion: n.cversion(), Aversion: n.aversion(), EphemeralOwner: n.owner(),
	}
}

// WalkStored calls fn for every node in pre-order, children sorted by
// name, with its path ("/" for the root) and stored form, and stops at the
// first error fn returns. The Data and ACL slices are shared with the
// tree: fn must not modify or keep them past the tree's next change.
func (t *Tree) WalkStored(fn func(path string, sn StoredNode) error) error {
	return t.preorder(func(path string, n *node) error { return fn(path, t.stored(n)) })
}

// recountQuotas is DataTree.setupQuota: for every leaf called
// zookeeper_limits under /zookeeper/quota, the quota path is what lies
// between /zookeeper/quota and the first "/zookeeper_limits" of its path,
// and that quota's stats node, if it exists, gets the count and bytes of
// the quota path's subtree (DataTree.updateQuotaForPath).
func (t *Tree) recountQuotas() {
	q := t.lookup(quotaPath)
	if q == nil {
		return
	}
	type frame struct {
		path string
		n    *node
	}
	stack := []frame{{quotaPath, q}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.n.numChildren() == 0 {
			end := "/" + quotaLimitsName
			if strings.HasSuffix(f.path, end) {
				t.recountQuota(f.path[len(quotaPath):strings.Index(f.path, end)])
			}
			continue
		}
		for c := range f.n.children() {
			stack = append(stack, frame{f.path + "/" + string(c.name()), c})
		}
	}
}

// recountQuota rewrites the stats node of quota path p from its subtree.
func (t *Tree) recountQuota(p string) {
	stats := t.lookup(quotaPath + p + "/" + quotaStatsName)
	if stats == nil {
		return
	}
	count, bytes := t.subtreeCounts(p)
	st := statsTrack{}
	st.set(statsBytes, bytes)
	st.set(statsCount, count)
	t.replaceData(stats, []byte(st.String()))
}
