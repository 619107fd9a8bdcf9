package datatree

import (
	"maps"
	"slices"
)

// KillSession deletes every ephemeral owned by session in one go (the
// closeSession txn, for close or expiry), in path order. Each deletion
// follows DataTree.deleteNode: the parent's pzxid moves to zxid only if
// larger and its stored cversion is unchanged (so the served cversion rises
// by one). It returns NodeDeleted and the parent's NodeChildrenChanged for
// each node.
func (t *Tree) KillSession(session int64, zxid int64) []Event {
	defer t.flushACLs()
	return t.killSession(session, zxid)
}

func (t *Tree) killSession(session int64, zxid int64) []Event {
	paths := t.Ephemerals(session)
	var ev []Event
	for _, p := range paths {
		parentPath, name, _ := splitPath(p)
		parent := t.lookup(parentPath)
		if parent == nil {
			continue
		}
		if n := parent.child(name); n != nil {
			t.removeNode(parent, parentPath, name, p, n, zxid, &ev)
		}
	}
	return ev
}

// Ephemerals returns the sorted paths of the normal ephemerals owned by
// session (empty, never nil).
func (t *Tree) Ephemerals(session int64) []string {
	set := t.ephemerals[session]
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// EphemeralSessions maps every session owning at least one ephemeral to
// its sorted paths (for the `dump` four-letter word). Unlike ZooKeeper 3.8,
// sessions whose last ephemeral was deleted are not listed.
func (t *Tree) EphemeralSessions() map[int64][]string {
	out := make(map[int64][]string, len(t.ephemerals))
	for s := range t.ephemerals {
		out[s] = t.Ephemerals(s)
	}
	return out
}

// EphemeralSessionIDs returns the sessions owning ephemerals, sorted.
func (t *Tree) EphemeralSessionIDs() []int64 {
	return slices.Sorted(maps.Keys(t.ephemerals))
}

// EphemeralCount is zk_ephemerals_count: the number of normal ephemerals.
func (t *Tree) EphemeralCount() int {
	total := 0
	for _, set := range t.ephemerals {
		total += len(set)
	}
	return total
}
