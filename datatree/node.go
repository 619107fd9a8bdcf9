package datatree

import (
	"bytes"
	"iter"
	"math"
	"slices"

	"github.com/zkraft/zkraft/wire"
)

// node is one znode; 80 bytes (the 80-byte size class) plus one buffer
// holding its name and data, a slot in its parent's child table, and an
// ext for the few nodes that need one. Its path is not stored: a node is
// reached through its parent's child table, which finds it by the name in
// buf.
//
// Fields that are almost always at their default live in ext, allocated
// only when one of them differs: pzxid (defaults to czxid, i.e. no child
// was ever created or deleted), stored cversion (0), ephemeralOwner (0:
// persistent), aversion (0) and the child table (none).
type node struct {
	// buf is the name followed by the data, in one allocation with
	// len == cap. It is never nil (the root's is empty) and never
	// modified once stored: setData installs a new buffer.
	buf []byte
	ext *ext
	// hash is the name's hash in the parent's child table (childHash).
	hash    uint32
	version int32
	acl     uint32 // index into the tree's ACL table
	// nameLen is len(name); its top bit (nullData) marks data that was
	// given as null (nil), which ZooKeeper keeps apart from empty data.
	nameLen uint32
	czxid   int64
	mzxid   int64
	ctime   int64
	mtime   int64
}

// nullData is the nameLen bit that marks null data.
const nullData = 1 << 31

// ext holds a node's rarely non-default fields (see node).
type ext struct {
	kids     *childTable // nil when the node has no children
	pzxid    int64
	owner    int64 // ZooKeeper's stored ephemeralOwner, see ownerKind
	cversion int32 // stored: the number of child creates ever performed
	aversion int32
}

// newBuf returns the buffer of a node called name holding data, and the
// matching nameLen. The data is copied, so the caller's slice is not kept.
func newBuf(name string, data []byte) ([]byte, uint32) {
	buf := make([]byte, len(name)+len(data))
	copy(buf, name)
	copy(buf[len(name):], data)
	nl := uint32(len(name))
	if data == nil {
		nl |= nullData
	}
	return buf, nl
}

// name returns the node's name as bytes (shared, do not modify).
func (n *node) name() []byte {
	k := n.nameLen &^ nullData
	return n.buf[:k:k]
}

// nameIs reports whether the node is called s.
func (n *node) nameIs(s string) bool {
	return int(n.nameLen&^nullData) == len(s) && string(n.buf[:len(s)]) == s
}

// data returns the node's data: nil for null data, otherwise a non-nil
// slice of buf that callers must not modify (its capacity ends with it).
func (n *node) data() []byte {
	if n.nameLen&nullData != 0 {
		return nil
	}
	k := n.nameLen
	return n.buf[k:len(n.buf):len(n.buf)]
}

// dataLen is len(n.data()).
func (n *node) dataLen() int { return len(n.buf) - int(n.nameLen&^nullData) }

// setBuf replaces name and data with a buffer built by newBuf.
func (n *node) setBuf(buf []byte, nameLen uint32) { n.buf, n.nameLen = buf, nameLen }

// setDataBytes replaces the data, keeping the name, in a new buffer.
func (n *node) setDataBytes(data []byte) {
	k := n.nameLen &^ nullData
	buf := make([]byte, int(k)+len(data))
	copy(buf, n.buf[:k])
	copy(buf[k:], data)
	if data == nil {
		k |= nullData
	}
	n.buf, n.nameLen = buf, k
}

// compareNames orders nodes by name, bytewise as Go compares strings.
func compareNames(a, b *node) int { return bytes.Compare(a.name(), b.name()) }

// extOf returns n's ext, allocating a default one if needed.
func (n *node) extOf() *ext {
	if n.ext == nil {
		n.ext = &ext{pzxid: n.czxid}
	}
	return n.ext
}

// dropDefaultExt frees ext when all its fields are back at their defaults.
func (n *node) dropDefaultExt() {
	if e := n.ext; e != nil && e.kids == nil && e.pzxid == n.czxid &&
		e.owner == 0 && e.cversion == 0 && e.aversion == 0 {
		n.ext = nil
	}
}

func (n *node) pzxid() int64 {
	if n.ext == nil {
		return n.czxid
	}
	return n.ext.pzxid
}

func (n *node) setPzxid(v int64) {
	if n.ext != nil || v != n.czxid {
		n.extOf().pzxid = v
	}
}

// owner is ZooKeeper's stored ephemeralOwner: a session id, 0,
// containerOwner or a TTL encoding (see ownerKind).
func (n *node) owner() int64 {
	if n.ext == nil {
		return 0
	}
	return n.ext.owner
}

func (n *node) setOwner(v int64) {
	if n.ext != nil || v != 0 {
		n.extOf().owner = v
	}
}

// cversion is the stored cversion: the number of child creates.
func (n *node) cversion() int32 {
	if n.ext == nil {
		return 0
	}
	return n.ext.cversion
}

func (n *node) setCversion(v int32) {
	if n.ext != nil || v != 0 {
		n.extOf().cversion = v
	}
}

func (n *node) aversion() int32 {
	if n.ext == nil {
		return 0
	}
	return n.ext.aversion
}

func (n *node) setAversion(v int32) {
	if n.ext != nil || v != 0 {
		n.extOf().aversion = v
	}
}

// numChildren is the number of children.
func (n *node) numChildren() int {
	if n.ext == nil || n.ext.kids == nil {
		return 0
	}
	return int(n.ext.kids.n)
}

// kind is ZooKeeper's EphemeralType.
type kind uint8

const (
	kindPersistent kind = iota // EphemeralType.VOID
	kindEphemeral              // EphemeralType.NORMAL
	kindContainer              // EphemeralType.CONTAINER
	kindTTL                    // EphemeralType.TTL
)

const (
	// containerOwner is the ephemeralOwner marker of container nodes
	// (EphemeralType.CONTAINER_EPHEMERAL_OWNER = Long.MIN_VALUE).
	containerOwner int64 = math.MinInt64
	// extendedMask is the top byte that marks an extended ephemeralOwner
	// (0xFF00000000000000).
	extendedMask int64 = -0x0100000000000000
	// extendedFeatureMask selects the feature id bits 40-55; TTL is 0.
	extendedFeatureMask int64 = 0x00ffff0000000000
	// MaxTTL is the largest TTL in milliseconds a TTL node may have (2^40-1).
	MaxTTL int64 = 1<<40 - 1
)

// ownerKind classifies a stored ephemeralOwner exactly as
// EphemeralType.get does. Extended (TTL) encodings are only recognised when
// extended types are enabled; otherwise such an owner is a normal session, as
// in ZooKeeper. An extended owner with a non-zero feature id makes ZooKeeper
// throw; it is treated as a normal ephemeral here.
func ownerKind(owner int64, extended bool) kind {
	if extended && owner&extendedMask == extendedMask {
		if owner&extendedFeatureMask == 0 {
			return kindTTL
		}
		return kindEphemeral
	}
	switch owner {
	case containerOwner:
		return kindContainer
	case 0:
		return kindPersistent
	}
	return kindEphemeral
}

// ttlOwner encodes a TTL as an extended ephemeralOwner
// (EphemeralType.TTL.toEphemeralOwner); ttl must be in (0, MaxTTL].
func ttlOwner(ttl int64) int64 { return extendedMask | ttl }

// ttlOf extracts the TTL of a TTL owner encoding.
func ttlOf(owner int64) int64 { return owner & MaxTTL }

// newNode returns a node called name stamped as DataTree.createStat does.
// data is copied.
func newNode(name string, data []byte, acl uint32, zxid, time int64) *node {
	n := &node{acl: acl, czxid: zxid, mzxid: zxid, ctime: time, mtime: time}
	n.buf, n.nameLen = newBuf(name, data)
	return n
}

// stat returns the Stat served to clients (DataNode.copyStat): cversion is
// translated from "creates" to "changes" as 2*stored-numChildren, and the
// ephemeralOwner is shown only for normal ephemerals.
func (n *node) stat(extended bool) wire.Stat {
	nc := int32(n.numChildren())
	var owner int64
	if o := n.owner(); ownerKind(o, extended) == kindEphemeral {
		owner = o
	}
	return wire.Stat{
		Czxid:          n.czxid,
		Mzxid:          n.mzxid,
		Ctime:          n.ctime,
		Mtime:          n.mtime,
		Version:        n.version,
		Cversion:       n.cversion()*2 - nc,
		Aversion:       n.aversion(),
		EphemeralOwner: owner,
		DataLength:     int32(n.dataLen()),
		NumChildren:    nc,
		Pzxid:          n.pzxid(),
	}
}

// child returns the named child or nil.
func (n *node) child(name string) *node {
	if n.ext == nil || n.ext.kids == nil {
		return nil
	}
	return n.ext.kids.get(name)
}

// addChild links c (whose name is in its buffer) under n, allocating the
// child table on first use.
func (n *node) addChild(c *node) { n.kids().add(c) }

// addNewChild links c under n as addChild does, unless n already has a
// child of c's name; it reports whether it linked c.
func (n *node) addNewChild(c *node) bool { return n.kids().addNew(c) }

// kids returns n's child table, allocating it (and the ext) on first use.
func (n *node) kids() *childTable {
	e := n.extOf()
	if e.kids == nil {
		e.kids = &childTable{}
	}
	return e.kids
}

// removeChild unlinks the named child, dropping the table when it becomes
// empty (and the ext when all else is default) so that leaves that once
// had children cost little extra.
func (n *node) removeChild(name string) {
	if n.ext == nil || n.ext.kids == nil {
		return
	}
	n.ext.kids.remove(name)
	if n.ext.kids.n == 0 {
		n.ext.kids = nil
		n.dropDefaultExt()
	}
}

// children yields n's children in table order (callers sort or count).
func (n *node) children() iter.Seq[*node] {
	if n.ext == nil || n.ext.kids == nil {
		return func(func(*node) bool) {}
	}
	return n.ext.kids.all()
}

// sortedChildren returns n's children sorted by name.
func sortedChildren(n *node) []*node {
	out := make([]*node, 0, n.numChildren())
	for c := range n.children() {
		out = append(out, c)
	}
	slices.SortFunc(out, compareNames)
	return out
}
