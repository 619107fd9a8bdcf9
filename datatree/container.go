package datatree

import "slices"

// ContainerCandidates returns, sorted, the nodes the container reaper
// should try to delete at time now (ms), as ContainerManager.getCandidates:
//
//   - containers without children whose stored cversion is > 0 (they have
//     had a child), or, when maxNeverUsedMs != 0, whose cversion is 0 and
//     now-mtime > maxNeverUsedMs;
//   - TTL nodes without children whose ttl is non-zero and now-mtime > ttl.
//
// The reaper proposes a deleteContainer txn for each; one that got a child
// in between fails harmlessly with NOTEMPTY.
func (t *Tree) ContainerCandidates(now int64, maxNeverUsedMs int64) []string {
	var out []string
	for p := range t.containers {
		n := t.lookup(p)
		if n == nil || n.numChildren() > 0 {
			continue
		}
		if n.cversion() > 0 || (maxNeverUsedMs != 0 && now-n.mtime > maxNeverUsedMs) {
			out = append(out, p)
		}
	}
	for p := range t.ttls {
		n := t.lookup(p)
		if n == nil || n.numChildren() > 0 || ownerKind(n.owner(), t.cfg.ExtendedTypesEnabled) != kindTTL {
			continue
		}
		if ttl := ttlOf(n.owner()); ttl != 0 && now-n.mtime > ttl {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// ContainerCount returns the number of container nodes.
func (t *Tree) ContainerCount() int { return len(t.containers) }

// TTLCount returns the number of TTL nodes.
func (t *Tree) TTLCount() int { return len(t.ttls) }
