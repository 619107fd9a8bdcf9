package datatree

import (
	"slices"
	"strings"

	"github.com/zkraft/zkraft/wire"
)

// Config holds the options that change how transactions are applied. Every
// replica must use the same Config.
type Config struct {
	// ExtendedTypesEnabled allows TTL nodes (zookeeper.extendedTypesEnabled).
	// It also decides whether a stored TTL owner encoding is read as a TTL
	// node, as in ZooKeeper.
	ExtendedTypesEnabled bool
	// Schemes are the authentication providers ACLs may name besides ip
	// and digest (authProvider.N: sasl, x509), by scheme. Every server of
	// an ensemble must be given the same set, as in ZooKeeper.
	Schemes map[string]ACLScheme
}

// Tree is the znode tree. It is not safe for concurrent use: the caller
// serialises every call (reads included) with its own lock.
type Tree struct {
	cfg     Config
	schemes *Schemes
	root    *node
	// count is the number of real znodes, root included.
	count int
	// dataSize is ApproximateDataSize, maintained incrementally.
	dataSize   int64
	acls       aclTable
	ephemerals map[int64]map[string]struct{}
	containers map[string]struct{}
	ttls       map[string]struct{}
	// undo is non-nil while a multi is being applied; undoBuf is the
	// log's storage, kept (emptied) from one multi to the next.
	undo    *[]undoRec
	undoBuf []undoRec
	// views are the open views (Freeze), which every change informs.
	views []*View
	// maxCzxid is the largest czxid of any node ever attached: every node
	// in the tree has a czxid up to it (View.z).
	maxCzxid int64
}

// New returns the tree ZooKeeper starts with: "/", "/zookeeper" and
// "/zookeeper/quota" with world:anyone ALL, and "/zookeeper/config" with
// world:anyone READ and aversion -1. All have zero Stat fields and empty
// (non-nil) data; their children are linked without creates, so a fresh
// tree serves cversion -1 for "/" and -2 for "/zookeeper".
func New(cfg Config) *Tree {
	t := newEmpty(cfg)
	open := t.acls.acquire(wire.OpenACLUnsafe)
	t.root = newNode("", []byte{}, open, 0, 0)
	t.count = 1
	t.dataSize = javaLen(rootPath)
	proc := t.link(t.root, procPath, t.acls.acquire(wire.OpenACLUnsafe))
	t.link(proc, quotaPath, t.acls.acquire(wire.OpenACLUnsafe))
	cfgNode := t.link(proc, configPath, t.acls.acquire(wire.ReadACLUnsafe))
	cfgNode.setAversion(-1)
	return t
}

// Schemes returns the providers this tree checks ACLs with.
func (t *Tree) Schemes() *Schemes { return t.schemes }

// newEmpty returns a tree with empty indexes and no nodes.
func newEmpty(cfg Config) *Tree {
	return &Tree{
		cfg:        cfg,
		schemes:    NewSchemes(cfg.Schemes),
		acls:       newACLTable(),
		ephemerals: make(map[int64]map[string]struct{}),
		containers: make(map[string]struct{}),
		ttls:       make(map[string]struct{}),
	}
}

// link adds a built-in node with empty data and zero Stat fields without
// touching the parent's counters, and returns it.
func (t *Tree) link(parent *node, path string, acl uint32) *node {
	_, name, _ := splitPath(path)
	n := newNode(name, []byte{}, acl, 0, 0)
	parent.addChild(n)
	t.count++
	t.dataSize += javaLen(path)
	return n
}

// lookup finds a node by exact path. "" is the root alias ZooKeeper keeps
// in its node map, so it finds the root like "/".
func (t *Tree) lookup(path string) *node {
	if path == "" || path == rootPath {
		return t.root
	}
	if path[0] != '/' {
		return nil
	}
	n := t.root
	rest := path[1:]
	for {
		seg, tail, more := cutSlash(rest)
		n = n.child(seg)
		if n == nil || !more {
			return n
		}
		rest = tail
	}
}

// cutSlash splits s at its first '/'.
func cutSlash(s string) (head, tail string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// get returns the node at path or NONODE.
func (t *Tree) get(path string) (*node, error) {
	n := t.lookup(path)
	if n == nil {
		return nil, wire.CodeNoNode
	}
	return n, nil
}

// Exists reports whether a node exists at path.
func (t *Tree) Exists(path string) bool { return t.lookup(path) != nil }

// Stat returns the served Stat of the node at path, or NONODE.
func (t *Tree) Stat(path string) (wire.Stat, error) {
	n, err := t.get(path)
	if err != nil {
		return wire.Stat{}, err
	}
	return n.stat(t.cfg.ExtendedTypesEnabled), nil
}

// GetData returns the node's data (nil if it was created with null data)
// and Stat, or NONODE. The returned slice is shared: do not modify it.
func (t *Tree) GetData(path string) ([]byte, wire.Stat, error) {
	n, err := t.get(path)
	if err != nil {
		return nil, wire.Stat{}, err
	}
	return n.data(), n.stat(t.cfg.ExtendedTypesEnabled), nil
}

// GetChildren returns the sorted child names (never nil) and the Stat of
// the node, or NONODE.
func (t *Tree) GetChildren(path string) ([]string, wire.Stat, error) {
	n, err := t.get(path)
	if err != nil {
		return nil, wire.Stat{}, err
	}
	return childNames(n), n.stat(t.cfg.ExtendedTypesEnabled), nil
}

// childNames returns n's child names sorted, as a non-nil slice. The
// names are substrings of one string, built in one allocation.
func childNames(n *node) []string {
	kids := make([]*node, 0, n.numChildren())
	total := 0
	for c := range n.children() {
		kids = append(kids, c)
		total += int(c.nameLen &^ nullData)
	}
	var b strings.Builder
	b.Grow(total) // b's buffer is never reallocated, so all is final
	for _, c := range kids {
		b.Write(c.name())
	}
	all := b.String()
	names := make([]string, len(kids))
	for i, c := range kids {
		k := int(c.nameLen &^ nullData)
		names[i], all = all[:k], all[k:]
	}
	slices.Sort(names)
	return names
}

// GetACL returns a copy of the node's ACL and its Stat, or NONODE.
func (t *Tree) GetACL(path string) ([]wire.ACL, wire.Stat, error) {
	n, err := t.get(path)
	if err != nil {
		return nil, wire.Stat{}, err
	}
	return slices.Clone(t.acls.get(n.acl)), n.stat(t.cfg.ExtendedTypesEnabled), nil
}

// CheckACL checks perm on the node at path for a caller with the given
// auth ids: NONODE if it is missing, NOAUTH if denied, nil if allowed.
func (t *Tree) CheckACL(path string, perm int32, auth []wire.Id) error {
	n, err := t.get(path)
	if err != nil {
		return err
	}
	return t.schemes.checkACL(t.acls.get(n.acl), perm, auth)
}

// AllChildrenNumber is getAllChildrenNumber: the number of descendants of
// the node, excluding itself (NONODE if missing). ZooKeeper answers "/" with
// nodes.size()-2 (its node map holds "/" and the alias ""), which is every
// node but the root, /zookeeper and its children included. For the alias
// "" it counts every key starting with "/", i.e. all real nodes.
func (t *Tree) AllChildrenNumber(path string) (int32, error) {
	n, err := t.get(path)
	if err != nil {
		return 0, err
	}
	switch path {
	case "":
		return int32(t.count), nil
	case rootPath:
		return int32(t.count - 1), nil
	}
	return int32(descendants(n)), nil
}

// descendants counts the nodes below n without recursion.
func descendants(n *node) int {
	total := 0
	stack := []*node{n}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		total += top.numChildren()
		for c := range top.children() {
			if c.numChildren() > 0 {
				stack = append(stack, c)
			}
		}
	}
	return total
}

// NodeCount is DataTree.getNodeCount, shown by `srvr`/`stat` as "Node
// count" and by `mntr` as zk_znode_count: the size of ZooKeeper's node map,
// which holds every znode plus the root's alias "". A fresh tree therefore
// reports 5 (/, "", /zookeeper, /zookeeper/quota, /zookeeper/config).
func (t *Tree) NodeCount() int { return t.count + 1 }

// ApproximateDataSize is zk_approximate_data_size: the sum over all nodes of
// len(path) (in UTF-16 units, as Java's String.length) plus len(data). The
// root counts as "/" (1); a fresh tree reports 44.
func (t *Tree) ApproximateDataSize() int64 { return t.dataSize }

// SetConfig installs the ensemble's membership text in /zookeeper/config as
// ZooKeeper does when a quorum server starts (outside the log): the data,
// version -1, mzxid = the configuration's version (0 for a static zoo.cfg)
// and mtime = time. A standalone server leaves the node empty.
func (t *Tree) SetConfig(data []byte, configVersion, time int64) {
	n := t.lookup(configPath)
	t.setData(configPath, n, data, -1, configVersion, time)
}
