package treejson

import (
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"
)

// bumpBatch is how many create/delete pairs one multi carries.
const bumpBatch = 500

// bumpName is the child bumpSequences creates and deletes.
const bumpName = "zkraft-treejson-sequence-bump"

// bumpSequences moves the sequence counter of every parent of imported
// sequential nodes past the highest number imported. ZooKeeper names a
// sequential child after its parent's cversion, which every create and
// delete of a child raises by one: a multi of create/delete pairs raises it
// by a thousand in one round trip.
func (im *importer) bumpSequences() error {
	parents := make([]string, 0, len(im.seqMax))
	for p := range im.seqMax {
		parents = append(parents, p)
	}
	slices.Sort(parents)
	for _, p := range parents {
		bumped, err := im.bumpSequence(p, im.seqMax[p])
		if err != nil {
			return err
		}
		if bumped {
			im.stats.Sequencers++
		}
	}
	return nil
}

func (im *importer) bumpSequence(parent string, highest int64) (bool, error) {
	_, st, err := im.conn.Exists(parent)
	if err != nil {
		return false, fmt.Errorf("treejson: sequence counter of %s: %w", parent, err)
	}
	need := highest + 1 - int64(st.Cversion)
	if need <= 0 {
		return false, nil
	}
	child := join(parent, bumpName)
	for need > 0 {
		pairs := min(int64(bumpBatch), (need+1)/2)
		ops := make([]interface{}, 0, 2*pairs)
		for range pairs {
			ops = append(ops, &zk.CreateRequest{Path: child, Acl: zk.WorldACL(zk.PermAll)}, &zk.DeleteRequest{Path: child, Version: -1})
		}
		if _, err := im.conn.Multi(ops...); err != nil {
			return false, fmt.Errorf("treejson: move the sequence counter of %s past %010d: %w", parent, highest, err)
		}
		need -= 2 * pairs
	}
	return true, nil
}
