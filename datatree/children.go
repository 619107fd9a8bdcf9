package datatree

import (
	"bytes"
	"hash/maphash"
	"iter"
	"math/rand/v2"
)

// childTable is a node's children: an open-addressing hash set of *node
// with linear probing, keyed by the name each child holds in its buffer.
// It replaces map[string]*node, whose slot also held a string header and
// whose key was a separate allocation, at 9 bytes per slot: a slot pointer
// and a control byte (0 for empty, else 0x80 plus the top 7 bits of the
// hash) that spares most probes a visit to the node.
//
// A large table grows at a limit drawn for it (limitFor), so that tables
// filled in step do not all grow on the same write. A bulk load spreading
// its creates evenly over 1,000 parents doubled all their tables within a
// few writes: at 10M znodes, rehashing 7M children (each read from memory
// for its hash) held a three-server ensemble's apply for seconds, and
// clients gave up on it (docs/scale.md).
//
// Its hash seed is random, like a Go map's, so that clients cannot choose
// colliding names; as with Go maps, table order never leaks into results
// (every listing is sorted).
type childTable struct {
	ctrl  []uint8
	slots []*node
	n     int32 // children
	limit int32 // the most children before the table grows
}

const (
	minTableLen = 4
	ctrlFull    = 0x80
)

// jitterFrom is the least slot count whose growth limit is drawn
// (limitFor); a variable so that tests can draw for small tables.
var jitterFrom = 1024

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
	t.insert(c)
}

// insert adds c, whose hash is set.
func (t *childTable) insert(c *node) {
	if t.n >= t.limit {
		t.resize(max(minTableLen, 2*len(t.slots)))
	}
	t.place(c)
	t.n++
}

// addNew inserts c as add does, unless a child of the same name is
// present; it reports whether it inserted c.
func (t *childTable) addNew(c *node) bool {
	h := uint32(maphash.Bytes(childSeed, c.name()))
	if len(t.slots) > 0 {
		tag, mask := ctrlOf(h), uint32(len(t.slots)-1)
		for i := h & mask; t.ctrl[i] != 0; i = (i + 1) & mask {
			if o := t.slots[i]; t.ctrl[i] == tag && o.hash == h && bytes.Equal(o.name(), c.name()) {
				return false
			}
		}
	}
	c.hash = h
	t.insert(c)
	return true
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

// limitFor is the most children a table of size slots holds before it
// grows: 7/8 of it for a small table, and for one of jitterFrom slots or
// more a number drawn between 3/4 and 7/8 of it. The draw spreads the
// growths of parents that fill in step (a bulk load creating under many
// parents in turn) over many writes instead of one.
func limitFor(size int) int32 {
	if size < jitterFrom {
		return int32(size * 7 / 8)
	}
	return int32(size*3/4 + rand.IntN(size/8+1))
}

// resize rehashes into a table of size slots (a power of two > n).
func (t *childTable) resize(size int) {
	old := t.slots
	t.ctrl = make([]uint8, size)
	t.slots = make([]*node, size)
	t.limit = limitFor(size)
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
				if len(t.slots) > minTableLen && int(t.n)*8 < len(t.slots) {
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
