package treejson

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-zookeeper/zk"
)

// MaxCounterSteps bounds the creates and deletes an import spends moving
// one parent's sequence counter: 100,000 steps are 100 multis of 500
// create/delete pairs, a few seconds and a few megabytes of transaction
// log on the target. A queue or lock parent moved to a fresh target
// needs about as many steps as it has seen child changes since its
// oldest live sequential child was created, which is within the bound
// for the recipes sequential nodes serve. A number further ahead is
// rather a name that only looks like a sequence number (an id, a Unix
// time in a hand-written or old export): such a counter is left as it
// is, with a warning naming the parent, and the import carries on.
const MaxCounterSteps = 100_000

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
			im.count1(&im.stats.Sequencers)
		}
	}
	im.setCounter("", 0)
	return nil
}

func (im *importer) bumpSequence(parent string, highest int64) (bool, error) {
	ok, st, err := im.conn.Exists(parent)
	if err != nil {
		return false, fmt.Errorf("treejson: sequence counter of %s: %w", parent, err)
	}
	if !ok || st == nil {
		return false, fmt.Errorf("treejson: sequence counter of %s: %w", parent, zk.ErrNoNode)
	}
	need := highest + 1 - int64(st.Cversion)
	if need <= 0 {
		return false, nil
	}
	if need > MaxCounterSteps || highest >= math.MaxInt32 {
		im.warn(fmt.Sprintf("the sequence counter of %s is at %d: moving it past the imported %010d would take %d creates and deletes, "+
			"more than the %d an import spends on one counter; it is left as it is, so a sequential create under %s may get a name "+
			"that sorts before the imported ones (or collides with one)", parent, st.Cversion, highest, need, MaxCounterSteps, parent))
		return false, nil
	}
	child := join(parent, bumpName)
	var steps int64
	for steps < need {
		pairs := min(int64(bumpBatch), (need-steps+1)/2)
		ops := make([]interface{}, 0, 2*pairs)
		for range pairs {
			ops = append(ops, &zk.CreateRequest{Path: child, Acl: zk.WorldACL(zk.PermAll)}, &zk.DeleteRequest{Path: child, Version: -1})
		}
		if _, err := im.conn.Multi(ops...); err != nil {
			return false, fmt.Errorf("treejson: move the sequence counter of %s past %010d: %w", parent, highest, err)
		}
		steps += 2 * pairs
		im.setCounter(parent, steps)
	}
	return true, nil
}

func (im *importer) setCounter(parent string, steps int64) {
	im.mu.Lock()
	im.counter, im.counterSteps = parent, steps
	im.mu.Unlock()
}

func (im *importer) warn(msg string) {
	im.mu.Lock()
	im.stats.Warnings = append(im.stats.Warnings, msg)
	im.mu.Unlock()
}
