package migrate

import "github.com/zkraft/zkraft/wire"

// openUnsafeID is the ACL id ZooKeeper gives a null list: world:anyone ALL
// without an entry in the cache.
const openUnsafeID int64 = -1

// aclCache is ZooKeeper's ReferenceCountedACLCache as a restore changes
// it: the ids of the snapshot's ACL table, the id the next new list gets,
// and how many nodes use each id, so that a list nobody uses any more is
// dropped and, made again, gets a new id, as in ZooKeeper. Equal lists
// share one slice.
//
// ZooKeeper's snapshot is fuzzy and writes the ACL table before the
// nodes, so a node created while the snapshot was written can refer to an
// id the table lacks. ZooKeeper loads such a node and ignores the id's
// use; the replay of the node's create, which converts its list before it
// finds the node already there, gives the list that id. waiting holds
// those nodes until then.
type aclCache struct {
	lists   map[int64][]wire.ACL // longKeyMap
	ids     map[string]int64     // aclKeyMap, by the list's encoding
	counts  map[int64]int64      // referenceCounter
	last    int64                // aclIndex: the highest id read or given
	waiting map[int64][]waitingNode
	key     []byte
}

// waitingNode is a snapshot node whose ACL id the snapshot's table lacks.
type waitingNode struct {
	path string
	off  int64 // the node's record in the snapshot
	n    *znode
}

func newACLCache() aclCache {
	return aclCache{
		lists:   make(map[int64][]wire.ACL),
		ids:     make(map[string]int64),
		counts:  make(map[int64]int64),
		waiting: make(map[int64][]waitingNode),
	}
}

// encode returns acl's encoding, the key of ids, in bytes the next call
// reuses: a lookup as ids[string(key)] allocates nothing, which matters
// on the replay of millions of creates.
func (c *aclCache) encode(acl []wire.ACL) []byte {
	e := wire.NewEncoder(c.key[:0])
	wire.EncodeACLs(e, acl)
	c.key = e.Bytes()
	return c.key
}

// read adds one entry of a snapshot's ACL table, unused so far, as
// ReferenceCountedACLCache.deserialize does.
func (c *aclCache) read(id int64, acl []wire.ACL) {
	key := c.encode(acl)
	if other, ok := c.ids[string(key)]; ok {
		acl = c.lists[other] // equal lists share one slice
	}
	c.last = max(c.last, id)
	c.ids[string(key)] = id
	c.lists[id] = acl
	c.counts[id] = 0
}

// list returns the list of id, nil when the cache has none.
func (c *aclCache) list(id int64) []wire.ACL {
	if id == openUnsafeID {
		return wire.OpenACLUnsafe
	}
	return c.lists[id]
}

// convert is convertAcls: the id of acl, a new one when no node uses an
// equal list, with one more use. A new id gives the snapshot's nodes that
// wait for it their list.
func (c *aclCache) convert(acl []wire.ACL) int64 {
	if acl == nil {
		return openUnsafeID
	}
	key := c.encode(acl)
	id, ok := c.ids[string(key)]
	if !ok {
		c.last++
		id = c.last
		c.ids[string(key)] = id
		c.lists[id] = acl
		c.counts[id] = 0
		for _, w := range c.waiting[id] {
			if w.n.aclID == id {
				w.n.acl = acl
			}
		}
		delete(c.waiting, id)
	}
	c.addUsage(id)
	return id
}

// addUsage counts one more node using id; an id the cache lacks is
// ignored, as ZooKeeper ignores it.
func (c *aclCache) addUsage(id int64) {
	if _, ok := c.counts[id]; ok && id != openUnsafeID {
		c.counts[id]++
	}
}

// removeUsage counts one node fewer using id and drops the list when
// none is left.
func (c *aclCache) removeUsage(id int64) {
	n, ok := c.counts[id]
	if !ok || id == openUnsafeID {
		return
	}
	if n > 1 {
		c.counts[id] = n - 1
		return
	}
	delete(c.counts, id)
	delete(c.ids, string(c.encode(c.lists[id])))
	delete(c.lists, id)
}

// purgeUnused drops the lists no node of the snapshot uses, as
// DataTree.deserialize does once the nodes are read.
func (c *aclCache) purgeUnused() {
	for id, n := range c.counts {
		if n <= 0 {
			delete(c.counts, id)
			delete(c.ids, string(c.encode(c.lists[id])))
			delete(c.lists, id)
		}
	}
}

// await holds a snapshot node whose id the table lacks.
func (c *aclCache) await(path string, off int64, n *znode) {
	c.waiting[n.aclID] = append(c.waiting[n.aclID], waitingNode{path: path, off: off, n: n})
}

// unresolved returns an error naming the snapshot's first node that is
// still in t without a list once the logs are replayed: ZooKeeper would
// fail to read its ACL.
func (c *aclCache) unresolved(t *zkTree, file string) error {
	var first *waitingNode
	for _, ws := range c.waiting {
		for i, w := range ws {
			if t.nodes[w.path] == w.n && w.n.acl == nil && (first == nil || w.off < first.off) {
				first = &ws[i]
			}
		}
	}
	if first == nil {
		return nil
	}
	path := first.path
	if path == "" {
		path = "/"
	}
	return corrupt(file, first.off, "the node %s refers to ACL list %d, which neither the snapshot's ACL table nor the logs after it define",
		path, first.n.aclID)
}
