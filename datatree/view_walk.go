package datatree

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"slices"
	"sync"

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

// kid is a child with its name, picked up under the lock.
type kid struct {
	n    *node
	name []byte
}

func compareKids(a, b kid) int { return bytes.Compare(a.name, b.name) }

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
		lock.Lock()
		if v.closed {
			lock.Unlock()
			return ErrViewClosed
		}
		wide := wk.step()
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

// due reports whether the encoded bytes are to be handed to the writer.
func (wk *walk) due() bool { return wk.w != nil && wk.e.Len() >= flushSize }

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

// step encodes nodes from the stack until the budget is spent, the buffer
// is due for a flush or the next node is wide, which it returns. The caller
// holds the lock.
func (wk *walk) step() *node {
	for work := 0; work < stepBudget && len(wk.stack) > 0 && !wk.due(); {
		n := wk.stack[len(wk.stack)-1]
		if wk.v.maxKids(n) > wideKids {
			return n
		}
		kids := wk.v.gather(n, wk.kids[:0])
		slices.SortFunc(kids, compareKids)
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
// to be gathered in one step: its live child table is copied out in one
// hold of the lock, the children's names are read a batch per hold, and
// they are sorted with the lock released.
func (wk *walk) wide(n *node) error {
	live, changes, err := wk.copyKids(n)
	if err != nil {
		return err
	}
	kids := make([]kid, 0, len(live)+len(changes))
	for _, c := range live {
		if changes[c] != +1 {
			kids = append(kids, kid{n: c})
		}
	}
	for c, d := range changes {
		if d == -1 {
			kids = append(kids, kid{n: c})
		}
	}
	for i := 0; i < len(kids); i += nameBatch {
		batch := kids[i:min(i+nameBatch, len(kids))]
		wk.lock.Lock()
		for j := range batch {
			if wk.v.sees(batch[j].n) {
				batch[j].name = batch[j].n.name()
			}
		}
		wk.lock.Unlock()
	}
	// A child's name is never empty: the unnamed ones were created after
	// Freeze.
	kids = slices.DeleteFunc(kids, func(k kid) bool { return k.name == nil })
	slices.SortFunc(kids, compareKids)
	wk.lock.Lock()
	if wk.v.closed {
		wk.lock.Unlock()
		return ErrViewClosed
	}
	wk.stack = wk.stack[:len(wk.stack)-1]
	wk.encode(n, len(kids))
	wk.lock.Unlock()
	wk.push(kids)
	return nil
}

// copyKids copies n's live children and the view's record of changes to
// them, both as of one hold of the lock. The copy is allocated with the
// lock released, so it is retried if the children outgrew it meanwhile.
func (wk *walk) copyKids(n *node) ([]*node, map[*node]int8, error) {
	var live []*node
	for {
		wk.lock.Lock()
		if wk.v.closed {
			wk.lock.Unlock()
			return nil, nil, ErrViewClosed
		}
		need := n.numChildren()
		if need <= cap(live) {
			if need > 0 {
				live = n.ext.kids.appendTo(live[:0])
			}
			changes := maps.Clone(wk.v.kids[n])
			wk.lock.Unlock()
			return live, changes, nil
		}
		wk.lock.Unlock()
		live = make([]*node, 0, need+need/8)
	}
}

// sees reports whether c may be one of the view's children: a child
// created after Freeze is not, and noteChild recorded nothing about it.
func (v *View) sees(c *node) bool { return c.czxid <= v.z }

// maxKids bounds the number of children the view sees under n.
func (v *View) maxKids(n *node) int { return n.numChildren() + len(v.kids[n]) }

// gather appends n's children as the view sees them, with their names.
func (v *View) gather(n *node, out []kid) []kid {
	changes := v.kids[n]
	for c := range n.children() {
		if v.sees(c) && changes[c] != +1 {
			out = append(out, kid{c, c.name()})
		}
	}
	for c, d := range changes {
		if d == -1 {
			out = append(out, kid{c, c.name()})
		}
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
