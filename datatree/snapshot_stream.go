package datatree

import (
	"io"

	"github.com/zkraft/zkraft/wire"
)

// flushSize is how many encoded bytes WriteSnapshot gathers before it
// hands them to its writer.
const flushSize = 32 << 10

// WriteSnapshot writes to w exactly the bytes Snapshot would encode, a few
// tens of kilobytes at a time, so that a snapshot of a large tree never
// exists as one buffer: w can store it in pieces or send it on. The tree
// must not change until it returns (the caller holds the lock that guards
// it). Restore reads the result.
func (t *Tree) WriteSnapshot(w io.Writer) error {
	e := wire.NewEncoder(make([]byte, 0, flushSize+4096))
	if err := t.encodeTree(e, w); err != nil {
		return err
	}
	if e.Len() == 0 {
		return nil
	}
	_, err := w.Write(e.Bytes())
	return err
}
