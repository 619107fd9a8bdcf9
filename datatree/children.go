package datatree

import (
	"hash/maphash"
	"iter"
)

// childTable is a node's children: an open-addressing hash set of *node
// with linear probing, keyed by the name each child holds in its buffer.
// It replaces map[string]*node, whose slot also held a string header and
// whose key was a separate allocation, at 9 bytes per slot: a slot pointer
// and a control byte (0 for empty, else 0x80 plus the top 7 bits of the
// hash) that spares most probes a visit to the node.
//
// Its hash seed is random, like a Go map's, so that clients cannot choose
// colliding names; as with Go maps, table order never leaks into results
// (every listing is sorted).
type childTable struct {
	ctrl  []uint8
	slots []*node
	n     int
}

const (
	minTableLen = 4
	ctrlFull    = 0x80
)

// childSeed seeds every child table's hash.
var childSeed = maphash.MakeSeed()

func childHash(name string) uint32 { return uint32(maphash.String(childSeed, name)) }

func ctrlOf(h uint32) uint8 { return ctrlFull | uint8(h>>25) }

// get returns the child called name, or nil.
func (t *childTable) get(name string) *node {
	h := childHash(name)
	tag := ctrlOf(h)
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch t.ctrl[i] {
		case 0:
			return nil
		case tag:
			if c := t.slots[i]; c.hash == h && c.nameIs(name) {
				return c
			}
		}
	}
}

// add inserts c, which must not be present, and sets c.hash.
func (t *childTable) add(c *node) {
	c.hash = uint32(maphash.Bytes(childSeed, c.name()))
	if (t.n+1)*8 > len(t.slots)*7 {
		t.resize(max(minTableLen, 2*len(t.slots)))
	}
	t.place(c)
	t.n++
}

// place puts c in the first free slot of its probe sequence.
func (t *childTable) place(c *node) {
	mask := uint32(len(t.slots) - 1)
	i := c.hash & mask
	for t.ctrl[i] != 0 {
		i = (i + 1) & mask
	}
	t.ctrl[i] = ctrlOf(c.hash)
	t.slots[i] = c
}

// resize rehashes into a table of size slots (a power of two > n).
func (t *childTable) resize(size int) {
	old := t.slots
	t.ctrl = make([]uint8, size)
	t.slots = make([]*node, size)
	for _, c := range old {
		if c != nil {
			t.place(c)
		}
	}
}

// remove deletes the child called name if present, closing the gap by
// shifting later entries of the probe run back (no tombstones), and
// shrinks the table when it falls below 1/8 full.
func (t *childTable) remove(name string) {
	h := childHash(name)
	tag := ctrlOf(h)
	mask := uint32(len(t.slots) - 1)
	i := h & mask
	for {
		if t.ctrl[i] == 0 {
			return
		}
		if t.ctrl[i] == tag {
			if c := t.slots[i]; c.hash == h && c.nameIs(name) {
				break
			}
		}
		i = (i + 1) & mask
	}
	for {
		t.ctrl[i], t.slots[i] = 0, nil
		j := i
		for {
			j = (j + 1) & mask
			if t.ctrl[j] == 0 {
				t.n--
				if len(t.slots) > minTableLen && t.n*8 < len(t.slots) {
					t.resize(len(t.slots) / 2)
				}
				return
			}
			// The entry at j may fill the hole at i unless its home
			// slot k lies cyclically in (i, j].
			k := t.slots[j].hash & mask
			if i <= j {
				if i < k && k <= j {
					continue
				}
			} else if i < k || k <= j {
				continue
			}
			break
		}
		t.ctrl[i], t.slots[i] = t.ctrl[j], t.slots[j]
		i = j
	}
}

// all yields every child in table order.
func (t *childTable) all() iter.Seq[*node] {
	return func(yield func(*node) bool) {
		for _, c := range t.slots {
			if c != nil && !yield(c) {
				return
			}
		}
	}
}
