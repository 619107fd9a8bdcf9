package datatree

import (
	"math"

	"github.com/zkraft/zkraft/wire"
)

// node is one znode. Its name and path are not stored: a node is reached
// through its parent's children map, keyed by name, which keeps the
// per-znode footprint at 96 bytes plus data, name and map slot.
type node struct {
	data     []byte
	children map[string]*node
	czxid    int64
	mzxid    int64
	pzxid    int64
	ctime    int64
	mtime    int64
	// owner is ZooKeeper's stored ephemeralOwner: a session id, 0,
	// containerOwner or a TTL encoding (see ownerKind).
	owner    int64
	version  int32
	cversion int32 // stored: the number of child creates ever performed
	aversion int32
	acl      uint32 // index into the tree's ACL table
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

// newNode returns a node stamped as DataTree.createStat does.
func newNode(data []byte, acl uint32, owner, zxid, time int64) *node {
	return &node{
		data: data, acl: acl, owner: owner,
		czxid: zxid, mzxid: zxid, pzxid: zxid,
		ctime: time, mtime: time,
	}
}

// stat returns the Stat served to clients (DataNode.copyStat): cversion is
// translated from "creates" to "changes" as 2*stored-numChildren, and the
// ephemeralOwner is shown only for normal ephemerals.
func (n *node) stat(extended bool) wire.Stat {
	nc := int32(len(n.children))
	var owner int64
	if ownerKind(n.owner, extended) == kindEphemeral {
		owner = n.owner
	}
	return wire.Stat{
		Czxid:          n.czxid,
		Mzxid:          n.mzxid,
		Ctime:          n.ctime,
		Mtime:          n.mtime,
		Version:        n.version,
		Cversion:       n.cversion*2 - nc,
		Aversion:       n.aversion,
		EphemeralOwner: owner,
		DataLength:     int32(len(n.data)),
		NumChildren:    nc,
		Pzxid:          n.pzxid,
	}
}

// child returns the named child or nil.
func (n *node) child(name string) *node {
	if n.children == nil {
		return nil
	}
	return n.children[name]
}

// addChild links c under name, allocating the children map on first use.
func (n *node) addChild(name string, c *node) {
	if n.children == nil {
		n.children = make(map[string]*node, 1)
	}
	n.children[name] = c
}

// removeChild unlinks name, dropping the map when it becomes empty so that
// leaves that once had children cost nothing extra.
func (n *node) removeChild(name string) {
	delete(n.children, name)
	if len(n.children) == 0 {
		n.children = nil
	}
}
