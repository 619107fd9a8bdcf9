package migrate

import (
	"math"
	"strings"

	"github.com/zkraft/zkraft/wire"
)

// zkTree is ZooKeeper's DataTree as far as a restore changes it: the node
// map from path to node ("" is the root, as in ZooKeeper's map), each
// node's children, and the ephemerals index per session. Its methods
// follow DataTree's createNode, deleteNode, setData, setACL,
// setCversionPzxid and killSession, including how they treat a node that
// is already there or already gone while a fuzzy snapshot is replayed.
type zkTree struct {
	nodes      map[string]*znode
	ephemerals map[int64]map[string]struct{}
	acls       aclCache
	// extended says whether TTL owner encodings are TTL nodes
	// (zookeeper.extendedTypesEnabled) rather than sessions.
	extended bool
}

// znode is DataNode: data, ACL and StatPersisted, and the child names.
type znode struct {
	data     []byte     // nil: null data
	acl      []wire.ACL // nil while aclID waits for the replay (see aclCache)
	aclID    int64      // ZooKeeper's reference into its ACL cache
	stat     statPersisted
	children map[string]struct{}
}

// statPersisted is ZooKeeper's StatPersisted record.
type statPersisted struct {
	czxid, mzxid, ctime, mtime  int64
	version, cversion, aversion int32
	ephemeralOwner, pzxid       int64
}

// Result codes of the tree operations (ZooKeeper's KeeperException codes).
const (
	codeOK         int32 = 0
	codeNoNode     int32 = -101
	codeNodeExists int32 = -110
)

// containerOwner and the TTL encoding are EphemeralType's.
const (
	containerOwner      int64 = math.MinInt64
	extendedMask        int64 = -0x0100000000000000
	extendedFeatureMask int64 = 0x00ffff0000000000
)

func newTree(extended bool) *zkTree {
	return &zkTree{
		nodes:      make(map[string]*znode),
		ephemerals: make(map[int64]map[string]struct{}),
		acls:       newACLCache(),
		extended:   extended,
	}
}

// isSession reports whether owner makes a node a normal ephemeral of that
// session (EphemeralType.get is NORMAL).
func (t *zkTree) isSession(owner int64) bool {
	if owner == 0 || owner == containerOwner {
		return false
	}
	if t.extended && owner&extendedMask == extendedMask && owner&extendedFeatureMask == 0 {
		return false // TTL
	}
	return true
}

// index adds or removes path in its owner's ephemerals set.
func (t *zkTree) index(path string, owner int64, add bool) {
	if !t.isSession(owner) {
		return
	}
	set := t.ephemerals[owner]
	if add {
		if set == nil {
			set = make(map[string]struct{})
			t.ephemerals[owner] = set
		}
		set[path] = struct{}{}
	} else if set != nil {
		delete(set, path)
	}
}

// splitZKPath splits at the last '/', as DataTree does with lastIndexOf;
// ok is false when there is none (ZooKeeper would throw).
func splitZKPath(path string) (parent, child string, ok bool) {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", "", false
	}
	return path[:i], path[i+1:], true
}

// createNode is DataTree.createNode. parentCVersion -1 means "the
// parent's cversion plus one"; the parent's cversion and pzxid move only
// when the new cversion is larger, so replaying a create the snapshot
// already holds changes nothing.
func (t *zkTree) createNode(path string, data []byte, acl []wire.ACL, owner int64, parentCVersion int32, zxid, time int64) int32 {
	parentName, childName, _ := splitZKPath(path)
	parent := t.nodes[parentName]
	if parent == nil {
		return codeNoNode
	}
	aclID := t.acls.convert(acl) // before the check, as in ZooKeeper
	if _, ok := parent.children[childName]; ok {
		return codeNodeExists
	}
	if parentCVersion == -1 {
		parentCVersion = parent.stat.cversion + 1
	}
	if parentCVersion > parent.stat.cversion {
		parent.stat.cversion = parentCVersion
		parent.stat.pzxid = zxid
	}
	n := &znode{data: data, acl: t.acls.list(aclID), aclID: aclID, stat: statPersisted{
		czxid: zxid, mzxid: zxid, pzxid: zxid, ctime: time, mtime: time, ephemeralOwner: owner}}
	parent.addChild(childName)
	t.nodes[path] = n
	t.index(path, owner, true)
	return codeOK
}

func (n *znode) addChild(name string) {
	if n.children == nil {
		n.children = make(map[string]struct{})
	}
	n.children[name] = struct{}{}
}

// deleteNode is DataTree.deleteNode: the parent's pzxid moves to zxid
// (when larger) even if the child is already gone, before NONODE.
func (t *zkTree) deleteNode(path string, zxid int64) int32 {
	parentName, childName, _ := splitZKPath(path)
	parent := t.nodes[parentName]
	if parent == nil {
		return codeNoNode
	}
	delete(parent.children, childName)
	if zxid > parent.stat.pzxid {
		parent.stat.pzxid = zxid
	}
	n := t.nodes[path]
	if n == nil {
		return codeNoNode
	}
	delete(t.nodes, path)
	t.acls.removeUsage(n.aclID)
	t.index(path, n.stat.ephemeralOwner, false)
	return codeOK
}

// setData is DataTree.setData: the txn carries the new version.
func (t *zkTree) setData(path string, data []byte, version int32, zxid, time int64) int32 {
	n := t.nodes[path]
	if n == nil {
		return codeNoNode
	}
	n.data = data
	n.stat.mtime, n.stat.mzxid, n.stat.version = time, zxid, version
	return codeOK
}

// setACL is DataTree.setACL: the txn carries the new aversion.
func (t *zkTree) setACL(path string, acl []wire.ACL, version int32) int32 {
	n := t.nodes[path]
	if n == nil {
		return codeNoNode
	}
	aclID := t.acls.convert(acl)
	t.acls.removeUsage(n.aclID)
	n.stat.aversion = version
	n.acl, n.aclID = t.acls.list(aclID), aclID
	return codeOK
}

// setCversionPzxid is DataTree.setCversionPzxid, the fix-up after a
// create that found its node already there.
func (t *zkTree) setCversionPzxid(path string, cversion int32, zxid int64) int32 {
	path = strings.TrimSuffix(path, "/")
	n := t.nodes[path]
	if n == nil {
		return codeNoNode
	}
	if cversion == -1 {
		cversion = n.stat.cversion + 1
	}
	if cversion > n.stat.cversion {
		n.stat.cversion, n.stat.pzxid = cversion, zxid
	}
	return codeOK
}

// killSession is DataTree.killSession: the paths the closeSession txn
// lists (nil for a txn without them), then the session's other
// ephemerals, each deleted as deleteNode does (a missing one ignored).
func (t *zkTree) killSession(session, zxid int64, listed []string) {
	local := t.ephemerals[session]
	delete(t.ephemerals, session)
	for _, p := range listed {
		t.deleteNode(p, zxid)
	}
	for _, p := range listed {
		delete(local, p)
	}
	for p := range local {
		t.deleteNode(p, zxid)
	}
}
