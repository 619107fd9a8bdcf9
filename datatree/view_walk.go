package datatree

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// The limits on how long one hold of the caller's lock lasts while a view
// is written. They are variables so that tests can make every path run on
// small trees.
var (
	// stepBudget is the work, in nodes encoded plus children gathered,
	// that one hold of the lock may do.
	stepBudget = 256
	// wideKids is the most children a node may have for them to be
	// gathered and sorted in one hold; a wider node's children are copied
	// out in one hold, named in batches of nameBatch and sorted with the
	// lock released.
	wideKids  = 1024
	nameBatch = 512
	// minStepHold is how long any step may hold the lock, past its
	// budget; maxStepHold bounds how long a step that waited for the lock
	// may go on holding it (see acquire); maxStepBytes bounds what such a
	// step encodes before the bytes are handed to the writer.
	minStepHold  = 2 * time.Millisecond
	maxStepHold  = 5 * time.Millisecond
	maxStepBytes = 4 << 20
	// walkClock is the walk's clock.
	walkClock = time.Now
)

// ErrViewClosed is returned by View.WriteTo when the view was closed.
var ErrViewClosed = errors.New("datatree: view closed")

// nopLocker is the lock of a walk over a tree that cannot change.
type nopLocker struct{}

func (nopLocker) Lock()   {}
func (nopLocker) Unlock() {}

// WriteTo writes the view's snapshot to w: the bytes WriteSnapshot would
// have written at the moment of Freeze. lock must keep the tree from
// changing while it is held: it is the read side of the lock the caller
// holds exclusively to apply transactions and to Close the view. WriteTo
// holds it only for short steps (a bounded number of nodes, or a copy of one
// node's child table) and never while it writes to w or sorts, so
// transactions are applied in between.
func (v *View) WriteTo(w io.Writer, lock sync.Locker) error {
	e := wire.NewEncoder(make([]byte, 0, flushSize+4096))
	if err := v.write(e, w, lock); err != nil {
		return err
	}
	if e.Len() == 0 {
		return nil
	}
	_, err := w.Write(e.Bytes())
	return err
}

// kid is a child with its name, picked up under the lock, and its sort
// key (sortKids).
type kid struct {
	n    *node
	name []byte
	key  uint64
}

// sortKids sorts kids by name. Each kid gets a key: the first 8 bytes of
// its name after the prefix all the names share, big-endian and padded
// with zeros. Two names whose keys differ compare as their keys do (where
// a key's padding differs from a byte, the name is a prefix of the other,
// so it is the smaller). Comparisons then read the names only where keys
// tie, instead of each reading two names from their nodes, a cache miss
// away: sorting a 10M-znode tree's children took 40% of a snapshot's walk.
func sortKids(kids []kid) {
	if len(kids) < 2 {
		return
	}
	p := commonPrefix(kids)
	for i := range kids {
		kids[i].key = nameKey(kids[i].name[p:])
	}
	slices.SortFunc(kids, compareKids)
}

func compareKids(a, b kid) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	return bytes.Compare(a.name, b.name)
}

// commonPrefix is the length of the prefix all the kids' names share.
func commonPrefix(kids []kid) int {
	p := kids[0].name
	for _, k := range kids[1:] {
		n := min(len(p), len(k.name))
		i := 0
		for i < n && p[i] == k.name[i] {
			i++
		}
		if p = p[:i]; len(p) == 0 {
			return 0
		}
	}
	return len(p)
}

// nameKey is the first 8 bytes of b as a big-endian number, padded with
// zeros.
func nameKey(b []byte) uint64 {
	var buf [8]byte
	copy(buf[:], b)
	return binary.BigEndian.Uint64(buf[:])
}

// walk is the state of one write of a view: a pre-order traversal with
// children sorted by name, kept on an explicit stack.
type walk struct {
	v     *View
	e     *wire.Encoder
	w     io.Writer
	lock  sync.Locker
	refs  map[uint32]int32
	stack []*node
	kids  []kid // scratch for narrow nodes
}

// write encodes the view into e. With a writer, it hands e's bytes to w,
// with the lock released, whenever they reach flushSize, and the caller
// writes what is left; without one, everything stays in e.
func (v *View) write(e *wire.Encoder, w io.Writer, lock sync.Locker) error {
	if lock == nil {
		lock = nopLocker{}
	}
	wk := &walk{v: v, e: e, w: w, lock: lock, refs: make(map[uint32]int32), stack: []*node{v.root}}
	e.Int(snapMagic)
	e.Int(snapVersion)
	for len(wk.stack) > 0 {
		h := wk.acquire()
		if v.closed {
			lock.Unlock()
			return ErrViewClosed
		}
		wide := wk.step(h)
		lock.Unlock()
		if wide != nil {
			if err := wk.wide(wide); err != nil {
				return err
			}
		}
		if err := wk.flush(); err != nil {
			return err
		}
	}
	return nil
}

// hold says until when a step may go on holding the lock: past its
// budget of nodes until work, and with flushSize bytes or more encoded
// until bytes.
type hold struct{ work, bytes time.Time }

// acquire takes the lock and returns how long the step may hold it past
// its budget: as long as it waited for it, up to maxStepHold, and in any
// case minStepHold for the nodes (not for the bytes, which a step that
// did not wait hands to the writer at flushSize).
//
// A step that waits is one that the caller's applies kept out. The
// consensus layer lets a waiting walk in after 5 ms of applying; an
// apply that held the lock for a whole batch (during a bulk load, 64
// multis of 100 creates, 10-20 ms) left a step of stepBudget nodes per
// batch walking 10M znodes for tens of minutes, so that a snapshot of a
// tree being filled never finished and a restart replayed the whole fill.
// Holding the lock about as long as the apply did gives the walk up to
// half the lock's time, and an apply waits at most maxStepHold for it, no
// longer than its own turn. At 20 ms, a small batch of writes that had
// been descheduled past its turn gave the walk one as long as the wait,
// and the writes left in the batch paid for it: the longest write during
// a snapshot at 1M under 16 writers was 82-503 ms, against 59-75 ms at
// 5 ms. Without a queue of applies the step waits for nothing and holds
// the lock for minStepHold: a step of stepBudget nodes, a few hundred
// microseconds, paid a wait behind the applies every few hundred nodes
// (a 4M-znode snapshot of a tree being filled took 20,000 holds).
func (wk *walk) acquire() hold {
	start := walkClock()
	wk.lock.Lock()
	now := walkClock()
	waited := min(now.Sub(start), maxStepHold)
	return hold{work: now.Add(max(waited, minStepHold)), bytes: now.Add(waited)}
}

// due reports whether the encoded bytes are to be handed to the writer.
func (wk *walk) due() bool { return wk.w != nil && wk.e.Len() >= flushSize }

// buffered is the encoded bytes waiting for the writer; without one,
// nothing is ever handed over and it is 0.
func (wk *walk) buffered() int {
	if wk.w == nil {
		return 0
	}
	return wk.e.Len()
}

// flush hands the encoded bytes to the writer once they reach flushSize.
func (wk *walk) flush() error {
	if !wk.due() {
		return nil
	}
	if _, err := wk.w.Write(wk.e.Bytes()); err != nil {
		return err
	}
	wk.e.Reset()
	return nil
}

// step encodes nodes from the stack until the budget is spent and the
// hold's time for work has passed, or the buffer is due for a flush and
// its time for bytes has passed (or the buffer holds maxStepBytes), or
// the next node is wide, which it returns. The caller holds the lock.
func (wk *walk) step(h hold) *node {
	for work, nextWork, nextBytes := 0, stepBudget, flushSize; len(wk.stack) > 0; {
		if work >= nextWork || wk.buffered() >= nextBytes {
			full, until := wk.buffered() >= nextBytes, h.work
			if full {
				until = h.bytes
			}
			if wk.buffered() >= maxStepBytes || !walkClock().Before(until) {
				break
			}
			if work >= nextWork {
				nextWork = work + stepBudget
			}
			if full {
				nextBytes = wk.buffered() + flushSize
			}
		}
		n := wk.stack[len(wk.stack)-1]
		if wk.v.maxKids(n) > wideKids {
			return n
		}
		kids := wk.v.gather(n, wk.kids[:0])
		sortKids(kids)
		wk.stack = wk.stack[:len(wk.stack)-1]
		wk.encode(n, len(kids))
		wk.push(kids)
		work += 1 + len(kids)
		clear(kids)
		wk.kids = kids[:0]
	}
	return nil
}

// push puts the sorted kids on the stack so that the first is on top.
func (wk *walk) push(kids []kid) {
	for i := len(kids) - 1; i >= 0; i-- {
		wk.stack = append(wk.stack, kids[i].n)
	}
}

// wide encodes the node on top of the stack, whose children are too many
// to be gathered and sorted in one step: in one hold of the lock the
// children as the view sees them are listed and the node is encoded with
// their number; their names are read a batch at a time (as many batches
// per hold as acquire allows) and they are sorted with the lock released.
//
// Every hold may cost a wait behind a whole apply batch, so the hold
// count per wide node matters: beside a bulk load, five holds per parent
// (a copy that was always retried once, a hold per 512 names, one to
// encode) made a walk of 1,000 parents of 1,500 children take 105 s.
func (wk *walk) wide(n *node) error {
	h := wk.acquire()
	if wk.v.closed {
		wk.lock.Unlock()
		return ErrViewClosed
	}
	kids := wk.v.listKids(n)
	wk.stack = wk.stack[:len(wk.stack)-1]
	wk.encode(n, len(kids))
	named := nameKids(kids, 0, h.work)
	wk.lock.Unlock()
	for named < len(kids) {
		h := wk.acquire()
		named = nameKids(kids, named, h.work)
		wk.lock.Unlock()
	}
	sortKids(kids)
	wk.push(kids)
	return nil
}

// listKids returns n's children as the view sees them, without their
// names. The caller holds the lock.
func (v *View) listKids(n *node) []kid {
	return v.appendKids(n, make([]kid, 0, v.maxKids(n)))
}

// appendKids appends n's children as the view sees them, without their
// names: the live ones it sees and did not see linked, and the ones it
// saw unlinked. The caller holds the lock.
func (v *View) appendKids(n *node, out []kid) []kid {
	changes := v.kids[n]
	for c := range n.children() {
		if v.sees(c) && changes[c] != +1 {
			out = append(out, kid{n: c})
		}
	}
	for c, d := range changes {
		if d == -1 {
			out = append(out, kid{n: c})
		}
	}
	return out
}

// nameKids reads the names of kids from index i on, a batch of nameBatch
// at least and more while the time until has not passed, and returns the
// index of the first kid left unnamed. The caller holds the lock.
func nameKids(kids []kid, i int, until time.Time) int {
	for done := false; !done; done = i == len(kids) || !walkClock().Before(until) {
		batch := kids[i:min(i+nameBatch, len(kids))]
		for j := range batch {
			batch[j].name = batch[j].n.name()
		}
		i += len(batch)
	}
	return i
}

// sees reports whether c may be one of the view's children: a child
// created after Freeze is not, and noteChild recorded nothing about it.
func (v *View) sees(c *node) bool { return c.czxid <= v.z }

// maxKids bounds the number of children the view sees under n.
func (v *View) maxKids(n *node) int { return n.numChildren() + len(v.kids[n]) }

// gather appends n's children as the view sees them, with their names.
func (v *View) gather(n *node, out []kid) []kid {
	from := len(out)
	out = v.appendKids(n, out)
	for i := from; i < len(out); i++ {
		out[i].name = out[i].n.name()
	}
	return out
}

// encode writes one node as the view sees it, with nc children; its name
// (the root's is "") is written as a buffer, which encodes as a string.
func (wk *walk) encode(n *node, nc int) {
	f, ok := wk.v.saved[n]
	if !ok {
		f = freezeNode(n)
	}
	e := wk.e
	e.Buffer(f.name())
	e.Buffer(f.data())
	if ref, ok := wk.refs[f.acl]; ok {
		e.Int(ref)
	} else {
		ref = int32(len(wk.refs))
		wk.refs[f.acl] = ref
		e.Int(ref)
		wire.EncodeACLs(e, wk.v.t.acls.get(f.acl))
	}
	e.Long(f.czxid)
	e.Long(f.mzxid)
	e.Long(f.pzxid)
	e.Long(f.ctime)
	e.Long(f.mtime)
	e.Long(f.owner)
	e.Int(f.version)
	e.Int(f.cversion)
	e.Int(f.aversion)
	e.Int(int32(nc))
}
