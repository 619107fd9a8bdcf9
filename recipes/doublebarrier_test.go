package recipes_test

import (
	"context"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// dbMembers lists the participant nodes of the double barrier in dir,
// lowest first (their names end with their sequence numbers).
func dbMembers(t *testing.T, c *zk.Conn, dir string) []string {
	t.Helper()
	kids, _, err := c.Children(dir)
	if err == zk.ErrNoNode {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, k := range kids {
		if strings.Contains(k, "member-") {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(a[len(a)-10:], b[len(b)-10:]) })
	return out
}

// dbOwned returns the participant node owned by session id, or "".
func dbOwned(srv *integration.Server, dir string, id int64) string {
	for _, p := range srv.Ephemerals()[id] {
		if path.Dir(p) == dir {
			return path.Base(p)
		}
	}
	return ""
}

// TestDoubleBarrier_EnterAndLeaveTogether runs rounds of a five-party
// double barrier on one directory. Participants arrive one by one, so that
// the first is the lowest node and the last the highest. Nobody passes
// Enter before the fifth arrives; then all but one leave, and nobody
// returns from Leave before that last one leaves too. The holdout is the
// lowest node in one round and the highest in the other, the two roles
// of the leave algorithm.
func TestDoubleBarrier_EnterAndLeaveTogether(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const n = 5
	const dir = "/barriers/double"
	cs := clients(t, srv, n)
	watching := func(p string, sessions ...int64) bool {
		w := srv.WatchesByPath()[path.Join(dir, p)]
		for _, s := range sessions {
			if !slices.Contains(w, s) {
				return false
			}
		}
		return true
	}

	for round, holdout := range []int{0, n - 1} {
		parts := make([]*recipes.DoubleBarrier, n)
		var entered, left atomic.Int32
		var holdoutLeaving atomic.Bool
		enterErr := make(chan error, n)
		// Arrivals 0..n-2, one at a time.
		for i := range n - 1 {
			parts[i] = recipes.NewDoubleBarrier(cs[i], dir, n)
			go func() {
				err := parts[i].Enter(ctx)
				entered.Add(1)
				enterErr <- err
			}()
			eventually(t, func() bool {
				return len(dbMembers(t, cs[0], dir)) == i+1 && watching("ready", cs[i].SessionID())
			}, "participant queued")
		}
		require.Zero(t, entered.Load(), "round %d: nobody enters before the last arrives", round)

		parts[n-1] = recipes.NewDoubleBarrier(cs[n-1], dir, n)
		require.NoError(t, parts[n-1].Enter(ctx), "the last arrival passes at once")
		for range n - 1 {
			require.NoError(t, <-enterErr)
		}
		members := dbMembers(t, cs[0], dir)
		require.Len(t, members, n)

		// All but the holdout leave.
		leaveErr := make(chan error, n)
		var wg sync.WaitGroup
		for i := range n {
			if i == holdout {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := parts[i].Leave(ctx)
				if !holdoutLeaving.Load() {
					t.Errorf("round %d: participant %d left before the holdout did", round, i)
				}
				left.Add(1)
				leaveErr <- err
			}()
		}
		lowest, highest := members[0], members[n-1]
		if holdout == 0 {
			// The others delete their nodes and wait on the lowest.
			eventually(t, func() bool {
				var others []int64
				for i := 1; i < n; i++ {
					others = append(others, cs[i].SessionID())
				}
				return slices.Equal(dbMembers(t, cs[0], dir), []string{lowest}) && watching(lowest, others...)
			}, "the others waiting on the lowest")
		} else {
			// The lowest waits on the highest; the middle ones delete their
			// nodes and wait on the lowest.
			eventually(t, func() bool {
				var middle []int64
				for i := 1; i < n-1; i++ {
					middle = append(middle, cs[i].SessionID())
				}
				return slices.Equal(dbMembers(t, cs[0], dir), []string{lowest, highest}) &&
					watching(highest, cs[0].SessionID()) && watching(lowest, middle...)
			}, "the lowest waiting on the highest, the others on the lowest")
		}
		for p, w := range srv.WatchesByPath() {
			if strings.HasPrefix(p, dir+"/") {
				require.LessOrEqual(t, len(w), n-1, "watchers of %s", p)
			}
		}
		require.Zero(t, left.Load(), "round %d: nobody returns from Leave while the holdout is in", round)

		holdoutLeaving.Store(true)
		require.NoError(t, parts[holdout].Leave(ctx))
		wg.Wait()
		for range n - 1 {
			require.NoError(t, <-leaveErr)
		}
		kids, _, err := cs[0].Children(dir)
		require.NoError(t, err)
		require.Empty(t, kids, "round %d leaves no participant and no ready node", round)
	}
}

// A participant whose session expires after entering loses its node; the
// others count it as gone and leave without it, and it learns from Leave.
func TestDoubleBarrier_ExpiredParticipantDoesNotHoldOthers(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const n = 3
	const dir = "/barriers/double-expiry"
	cs := clients(t, srv, n)
	parts := make([]*recipes.DoubleBarrier, n)
	errs := make(chan error, n)
	for i := range parts {
		parts[i] = recipes.NewDoubleBarrier(cs[i], dir, n)
		go func() { errs <- parts[i].Enter(ctx) }()
	}
	for range n {
		require.NoError(t, <-errs)
	}

	// Participant 1 loses its session while inside.
	require.NoError(t, srv.ExpireSession(ctx, cs[1].SessionID()))
	require.Len(t, dbMembers(t, cs[0], dir), n-1)

	for _, i := range []int{0, 2} {
		go func() { errs <- parts[i].Leave(ctx) }()
	}
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	require.ErrorIs(t, parts[1].Leave(ctx), recipes.ErrSessionLost)
	kids, _, err := cs[0].Children(dir)
	require.NoError(t, err)
	require.Empty(t, kids)
}

// A participant whose session expires while it waits in Enter joins again
// with its new session, so that the others can still all enter.
func TestDoubleBarrier_EnterRejoinsAfterExpiry(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/barriers/double-rejoin"
	cs := clients(t, srv, 2)
	a, b := recipes.NewDoubleBarrier(cs[0], dir, 2), recipes.NewDoubleBarrier(cs[1], dir, 2)
	entered := make(chan error, 1)
	go func() { entered <- a.Enter(ctx) }()
	old := cs[0].SessionID()
	eventually(t, func() bool { return dbOwned(srv, dir, old) != "" }, "a's node")
	first := dbOwned(srv, dir, old)

	require.NoError(t, srv.ExpireSession(ctx, old))
	eventually(t, func() bool {
		id := cs[0].SessionID()
		return id != old && dbOwned(srv, dir, id) != ""
	}, "a joining again with its new session")
	require.NotEqual(t, first, dbOwned(srv, dir, cs[0].SessionID()))
	require.Len(t, dbMembers(t, cs[1], dir), 1)

	require.NoError(t, b.Enter(ctx))
	require.NoError(t, <-entered)
	go func() { entered <- a.Leave(ctx) }()
	require.NoError(t, b.Leave(ctx))
	require.NoError(t, <-entered)
}

func TestDoubleBarrier_EnterCancelledLeavesNoNode(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/barriers/double-cancel"
	c := clients(t, srv, 1)[0]
	b := recipes.NewDoubleBarrier(c, dir, 2)
	require.ErrorIs(t, b.Leave(ctx), recipes.ErrNotHeld, "not entered")

	ectx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- b.Enter(ectx) }()
	eventually(t, func() bool { return len(dbMembers(t, c, dir)) == 1 }, "the participant's node")
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.Empty(t, dbMembers(t, c, dir), "the cancelled participant removed its node")
	require.ErrorIs(t, b.Leave(ctx), recipes.ErrNotHeld)
}

func TestDoubleBarrier_SingleParticipantAndMisuse(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c := clients(t, srv, 1)[0]
	b := recipes.NewDoubleBarrier(c, "/barriers/double-one", 1, recipes.WithData([]byte("me")))
	require.NoError(t, b.Enter(ctx), "a barrier for one passes at once")
	require.ErrorIs(t, b.Enter(ctx), recipes.ErrAlreadyEntered)
	members := dbMembers(t, c, "/barriers/double-one")
	require.Len(t, members, 1)
	data, _, err := c.Get("/barriers/double-one/" + members[0])
	require.NoError(t, err)
	require.Equal(t, "me", string(data))
	require.NoError(t, b.Leave(ctx))
	require.NoError(t, b.Enter(ctx), "entered again for a new round")
	require.NoError(t, b.Leave(ctx))

	require.Error(t, recipes.NewDoubleBarrier(c, "/barriers/double-none", 0).Enter(ctx))
}

// Lost replies to a participant's creates (its node, the ready node) and
// deletes (the ready node, its node) change nothing: nobody is stuck, and
// nothing is left behind.
func TestDoubleBarrier_LostReplies(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	c, drops := countingDrops(t, srv)
	other := clients(t, srv, 1)[0]
	empty := func(dir string) {
		t.Helper()
		kids, _, err := other.Children(dir)
		require.NoError(t, err)
		require.Empty(t, kids)
	}

	// Alone (count 1), the participant creates and deletes both nodes.
	const solo = "/barriers/double-lost-solo"
	b := recipes.NewDoubleBarrier(c, solo, 1)
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpCreate}, Session: c.SessionID(), Drop: server.DropReply, Count: 2}))
	require.NoError(t, b.Enter(ctx))
	require.Equal(t, int32(2), drops.Load(), "both creates lost their replies")
	kids, _, err := other.Children(solo)
	require.NoError(t, err)
	require.Len(t, kids, 2, "one member node and the ready node")
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpDelete}, Session: c.SessionID(), Drop: server.DropReply, Count: 2}))
	require.NoError(t, b.Leave(ctx))
	require.Equal(t, int32(4), drops.Load(), "both deletes lost their replies")
	empty(solo)

	// With a partner: whichever role it has, its first delete loses its
	// reply, and both still leave.
	const pair = "/barriers/double-lost-pair"
	a, b := recipes.NewDoubleBarrier(other, pair, 2), recipes.NewDoubleBarrier(c, pair, 2)
	done := make(chan error, 1)
	go func() { done <- a.Enter(ctx) }()
	require.NoError(t, b.Enter(ctx))
	require.NoError(t, <-done)
	require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpDelete}, Session: c.SessionID(), Drop: server.DropReply}))
	go func() { done <- a.Leave(ctx) }()
	require.NoError(t, b.Leave(ctx))
	require.NoError(t, <-done)
	require.Equal(t, int32(5), drops.Load(), "the delete lost its reply")
	empty(pair)
}
