package datatree

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

// smallSteps makes every path of the view walk run on small trees: a step
// encodes a few nodes, any node with more than two children is wide and
// names are read two at a time.
func smallSteps(t *testing.T) {
	s, w, n, h, m := stepBudget, wideKids, nameBatch, maxStepHold, minStepHold
	stepBudget, wideKids, nameBatch, maxStepHold, minStepHold = 3, 2, 2, 0, 0
	t.Cleanup(func() { stepBudget, wideKids, nameBatch, maxStepHold, minStepHold = s, w, n, h, m })
}

// applyingLocker stands for a writer that gets the lock whenever the walk
// lets go of it: each Lock first applies the next few transactions, so
// that the tree changes between every two steps of the walk.
type applyingLocker struct {
	tr      *Tree
	next    func() *Txn
	per     int
	applied int
	changed int
}

func (l *applyingLocker) Lock() {
	for i := 0; i < l.per; i++ {
		if l.tr.Apply(l.next()).Err == nil {
			l.changed++
		}
		l.applied++
	}
}

func (l *applyingLocker) Unlock() {}

// snapshotBytes is what WriteSnapshot writes now.
func snapshotBytes(t *testing.T, tr *Tree) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, tr.WriteSnapshot(&b))
	return b.Bytes()
}

// quotaEnv returns a tree with a quota on /n1, so that changes below it
// rewrite a stats node too, filled by the workload.
func quotaEnv(t *testing.T, w *workload, ops int) *Tree {
	e := newEnv(t, Config{ExtendedTypesEnabled: true})
	e.mustCreate("/n1", 0)
	e.setQuota("/n1", "count=100,bytes=-1")
	w.zxid = e.zxid
	for i := 0; i < ops; i++ {
		e.tr.Apply(w.next())
	}
	return e.tr
}

// TestViewIsExactWhileTreeChanges: a view written while every kind of
// transaction (creates of every type, deletes, setData, setACL, multis that
// roll back, closeSession, quota updates) is applied between the walk's
// steps has exactly the bytes the tree had when the view was taken, and
// restores to that tree.
func TestViewIsExactWhileTreeChanges(t *testing.T) {
	for _, per := range []int{1, 5} {
		for seed := uint64(1); seed <= 6; seed++ {
			t.Run("per="+strconv.Itoa(per)+"/seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
				smallSteps(t)
				w := newWorkload(seed)
				tr := quotaEnv(t, w, 2000)
				want := snapshotBytes(t, tr)
				wantTree, err := Restore(wire.NewDecoder(want, 0), tr.cfg)
				require.NoError(t, err)

				v := tr.Freeze()
				l := &applyingLocker{tr: tr, next: w.next, per: per}
				var got bytes.Buffer
				require.NoError(t, v.WriteTo(&got, l))
				require.Greater(t, l.changed, 20, "the tree changed during the walk")
				require.Equal(t, want, got.Bytes())
				restored, err := Restore(wire.NewDecoder(got.Bytes(), 0), tr.cfg)
				require.NoError(t, err)
				require.Equal(t, dumpTree(t, wantTree), dumpTree(t, restored))

				require.NotEqual(t, want, snapshotBytes(t, tr), "the live tree moved on")
				v.Close()
				require.Empty(t, tr.views)
			})
		}
	}
}

// TestViewOfWideParent: children created and deleted under a node too
// wide to be gathered in one step are seen as they were at Freeze.
func TestViewOfWideParent(t *testing.T) {
	old := minStepHold
	minStepHold = 0 // steps of the default budget, so that the tree changes between many of them
	t.Cleanup(func() { minStepHold = old })
	e := newEnv(t, Config{})
	e.mustCreate("/w", 0)
	for i := 0; i < 3000; i++ {
		e.mustCreate("/w/c"+strconv.Itoa(i), 0)
	}
	want := snapshotBytes(t, e.tr)
	v := e.tr.Freeze()
	i := 0
	l := &applyingLocker{tr: e.tr, per: 3, next: func() *Txn {
		i++
		switch i % 3 {
		case 0:
			return e.txn(wire.OpCreate, createReq("/w/new"+strconv.Itoa(i), 0))
		case 1:
			return e.txn(wire.OpDelete, &wire.DeleteRequest{Path: "/w/c" + strconv.Itoa(i), Version: -1})
		}
		return e.txn(wire.OpSetData, &wire.SetDataRequest{Path: "/w/c" + strconv.Itoa(i+1000), Data: []byte("changed"), Version: -1})
	}}
	var got bytes.Buffer
	require.NoError(t, v.WriteTo(&got, l))
	require.Greater(t, l.changed, 30)
	require.Equal(t, want, got.Bytes())
	v.Close()
}

// TestViewOfCreatesAfterFreeze: children created after Freeze are told
// apart by their czxid and cost the view no entry, while a tree whose
// zxids went backwards (a node stored with a czxid above the creates that
// follow) still gets an exact view, from entries for those creates.
func TestViewOfCreatesAfterFreeze(t *testing.T) {
	for _, backwards := range []bool{false, true} {
		t.Run(fmt.Sprintf("backwards=%v", backwards), func(t *testing.T) {
			smallSteps(t)
			e := newEnv(t, Config{})
			e.mustCreate("/p", 0)
			for i := 0; i < 40; i++ {
				e.mustCreate("/p/c"+strconv.Itoa(i), 0)
			}
			if backwards {
				zxid := e.zxid
				e.zxid = 1 << 40
				e.mustCreate("/p/future", 0)
				e.zxid = zxid
			}
			want := snapshotBytes(t, e.tr)
			v := e.tr.Freeze()
			i := 0
			l := &applyingLocker{tr: e.tr, per: 2, next: func() *Txn {
				i++
				if i%4 == 0 { // delete one created after Freeze, and one from before
					return e.txn(wire.OpDelete, &wire.DeleteRequest{Path: "/p/" + strconv.Itoa(i/4*2), Version: -1})
				}
				if i%4 == 1 && i < 160 {
					return e.txn(wire.OpDelete, &wire.DeleteRequest{Path: "/p/c" + strconv.Itoa(i/4), Version: -1})
				}
				return e.txn(wire.OpCreate, createReq("/p/"+strconv.Itoa(i), 0))
			}}
			var got bytes.Buffer
			require.NoError(t, v.WriteTo(&got, l))
			require.Greater(t, l.changed, 30)
			require.Equal(t, want, got.Bytes())
			p := e.tr.lookup("/p")
			added := 0
			for _, d := range v.kids[p] {
				if d == +1 {
					added++
				}
			}
			if backwards {
				require.Positive(t, added, "creates below the largest czxid are recorded")
			} else {
				require.Zero(t, added, "creates after Freeze are not recorded")
				require.NotEmpty(t, v.kids[p], "deletes of children from before Freeze are")
			}
			v.Close()
		})
	}
}

// TestViewKeepsFreedACLs: an ACL list whose last node is deleted while a
// view is open is not freed (its index could otherwise be reused for
// another list), and is freed when the view closes.
func TestViewKeepsFreedACLs(t *testing.T) {
	e := newEnv(t, Config{})
	e.createACL("/a", []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "ip", ID: "10.1.1.1"}}})
	want := snapshotBytes(t, e.tr)
	live := e.tr.acls.live()
	v := e.tr.Freeze()
	require.NoError(t, e.del("/a", -1).Err)
	e.createACL("/b", []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "ip", ID: "10.2.2.2"}}})
	require.Equal(t, live+1, e.tr.acls.live(), "the deleted node's list is kept")
	var got bytes.Buffer
	require.NoError(t, v.WriteTo(&got, nil))
	require.Equal(t, want, got.Bytes())
	v.Close()
	require.Equal(t, live, e.tr.acls.live(), "and freed once the view is closed")
}

// TestViewClosed: a closed view cannot be written, and closing twice is
// harmless; two views at once each see their own moment.
func TestViewClosed(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/x", 0)
	first := snapshotBytes(t, e.tr)
	v1 := e.tr.Freeze()
	e.mustCreate("/y", 0)
	second := snapshotBytes(t, e.tr)
	v2 := e.tr.Freeze()
	e.setData("/x", []byte("new"), -1)
	require.NoError(t, e.del("/y", -1).Err)

	var b1, b2 bytes.Buffer
	require.NoError(t, v1.WriteTo(&b1, nil))
	require.NoError(t, v2.WriteTo(&b2, nil))
	require.Equal(t, first, b1.Bytes())
	require.Equal(t, second, b2.Bytes())

	v1.Close()
	v1.Close()
	require.ErrorIs(t, v1.WriteTo(&b1, nil), ErrViewClosed)
	v2.Close()
	require.Empty(t, e.tr.views)
}
