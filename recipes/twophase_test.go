package recipes_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// decision is what Transaction.Decide returned.
type decision struct {
	committed bool
	err       error
}

// decide runs tx.Decide in the background.
func decide(ctx context.Context, tx *recipes.Transaction) <-chan decision {
	out := make(chan decision, 1)
	go func() {
		ok, err := tx.Decide(ctx)
		out <- decision{ok, err}
	}()
	return out
}

// outcomes starts Outcome on each participant and returns their results,
// in order.
func outcomes(ctx context.Context, ps ...*recipes.Participant) []chan error {
	out := make([]chan error, len(ps))
	for i, p := range ps {
		out[i] = make(chan error, 1)
		go func() {
			ok, err := p.Outcome(ctx)
			if err == nil && !ok {
				err = fmt.Errorf("Outcome returned false without ErrAborted")
			}
			out[i] <- err
		}()
	}
	return out
}

// siteNames returns site-0 .. site-(n-1).
func siteNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("site-%d", i)
	}
	return out
}

// joinAll joins each site of tx from its own client.
func joinAll(ctx context.Context, t *testing.T, conns []*zk.Conn, dir, tx string) []*recipes.Participant {
	t.Helper()
	ps := make([]*recipes.Participant, len(conns))
	for i, c := range conns {
		p, err := recipes.JoinTransaction(ctx, c, dir, tx, fmt.Sprintf("site-%d", i))
		require.NoError(t, err)
		ps[i] = p
	}
	return ps
}

func outcomeData(t *testing.T, c *zk.Conn, p string) string {
	t.Helper()
	data, _, err := c.Get(p + "/outcome")
	require.NoError(t, err)
	return string(data)
}

func TestTwoPhase_AllCommit(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 4)
	coord := recipes.NewCoordinator(cs[0], "/2pc")
	tx, err := coord.Begin(ctx, "t1", siteNames(3))
	require.NoError(t, err)
	decided := decide(ctx, tx)

	ps := joinAll(ctx, t, cs[1:], "/2pc", "t1")
	results := outcomes(ctx, ps...)
	for _, p := range ps {
		require.NoError(t, p.Vote(ctx, true))
	}
	d := <-decided
	require.NoError(t, d.err)
	require.True(t, d.committed)
	for _, r := range results {
		require.NoError(t, <-r, "every site learns: committed")
	}
	require.Equal(t, "committed", outcomeData(t, cs[0], tx.Path()))
	done, committed, err := tx.Outcome(ctx)
	require.NoError(t, err)
	require.True(t, done && committed)

	// Sites that learned the outcome removed their alive nodes.
	kids, _, err := cs[0].Children(tx.Path())
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"outcome",
		"joined-site-0", "joined-site-1", "joined-site-2",
		"vote-site-0", "vote-site-1", "vote-site-2"}, kids)

	require.NoError(t, tx.Remove(ctx))
	ok, _, err := cs[0].Exists(tx.Path())
	require.NoError(t, err)
	require.False(t, ok, "removed")
	_, _, err = tx.Outcome(ctx)
	require.ErrorIs(t, err, zk.ErrNoNode)
}

// TestTwoPhase_OneAbortVoteAbortsAll: one site votes abort; the
// coordinator decides at once, without waiting for the last site's vote,
// and every site learns it.
func TestTwoPhase_OneAbortVoteAbortsAll(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 4)
	tx, err := recipes.NewCoordinator(cs[0], "/2pc").Begin(ctx, "t2", siteNames(3))
	require.NoError(t, err)
	decided := decide(ctx, tx)
	ps := joinAll(ctx, t, cs[1:], "/2pc", "t2")
	results := outcomes(ctx, ps...)

	require.NoError(t, ps[0].Vote(ctx, true))
	require.NoError(t, ps[1].Vote(ctx, false))
	// site-2 never votes.
	d := <-decided
	require.NoError(t, d.err)
	require.False(t, d.committed)
	for _, r := range results {
		require.ErrorIs(t, <-r, recipes.ErrAborted)
	}
	require.Equal(t, "aborted", outcomeData(t, cs[0], tx.Path()))
}

// TestTwoPhase_SiteSessionExpiresBeforeVoting: a site's session expires
// after it joined and before it voted; the coordinator aborts, the other
// sites learn it, and so does the expired site on its new session (it can
// no longer vote).
func TestTwoPhase_SiteSessionExpiresBeforeVoting(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 4)
	tx, err := recipes.NewCoordinator(cs[0], "/2pc").Begin(ctx, "t3", siteNames(3))
	require.NoError(t, err)
	decided := decide(ctx, tx)
	ps := joinAll(ctx, t, cs[1:], "/2pc", "t3")
	results := outcomes(ctx, ps[:2]...)
	require.NoError(t, ps[0].Vote(ctx, true))
	require.NoError(t, ps[1].Vote(ctx, true))

	dying := cs[3]
	old := dying.SessionID()
	require.NoError(t, srv.ExpireSession(ctx, old))
	d := <-decided
	require.NoError(t, d.err)
	require.False(t, d.committed, "a site died before voting")
	for _, r := range results {
		require.ErrorIs(t, <-r, recipes.ErrAborted)
	}

	eventually(t, func() bool { return dying.SessionID() != old && dying.State() == zk.StateHasSession }, "a new session")
	require.ErrorIs(t, ps[2].Vote(ctx, true), recipes.ErrSessionLost)
	_, err = ps[2].Outcome(ctx)
	require.ErrorIs(t, err, recipes.ErrAborted)
}

// TestTwoPhase_SiteDiedBeforeCoordinatorLooked: a site joins and dies
// before the coordinator starts deciding; its persistent joined node still
// tells the coordinator, which aborts without waiting.
func TestTwoPhase_SiteDiedBeforeCoordinatorLooked(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 3)
	tx, err := recipes.NewCoordinator(cs[0], "/2pc").Begin(ctx, "t4", siteNames(2))
	require.NoError(t, err)
	ps := joinAll(ctx, t, cs[1:], "/2pc", "t4")
	require.NoError(t, ps[0].Vote(ctx, true))
	require.NoError(t, srv.ExpireSession(ctx, cs[2].SessionID()))
	eventually(t, func() bool {
		ok, _, err := cs[0].Exists(tx.Path() + "/alive-site-1")
		return err == nil && !ok
	}, "site-1's alive node gone")

	ok, err := tx.Decide(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	_, err = ps[0].Outcome(ctx)
	require.ErrorIs(t, err, recipes.ErrAborted)

	// The dead site cannot come back in this transaction.
	_, err = recipes.JoinTransaction(ctx, cs[2], "/2pc", "t4", "site-1")
	require.ErrorIs(t, err, zk.ErrNodeExists)
}

// TestTwoPhase_DeadlineAborts: a site never joins; when Decide's context
// ends the coordinator aborts, and the site that voted learns it.
func TestTwoPhase_DeadlineAborts(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	tx, err := recipes.NewCoordinator(cs[0], "/2pc").Begin(ctx, "t5", siteNames(2))
	require.NoError(t, err)
	p, err := recipes.JoinTransaction(ctx, cs[1], "/2pc", "t5", "site-0")
	require.NoError(t, err)
	require.NoError(t, p.Vote(ctx, true))

	dctx, cancel := context.WithCancel(ctx)
	decided := decide(dctx, tx)
	result := outcomes(ctx, p)[0]
	cancel()
	d := <-decided
	require.ErrorIs(t, d.err, context.Canceled)
	require.False(t, d.committed)
	require.ErrorIs(t, <-result, recipes.ErrAborted)
	require.Equal(t, "aborted", outcomeData(t, cs[0], tx.Path()))
}

// TestTwoPhase_OutcomeIsImmutable: a second coordinator resumes a decided
// transaction; its Abort reports the commit and changes nothing.
func TestTwoPhase_OutcomeIsImmutable(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 3)
	tx, err := recipes.NewCoordinator(cs[0], "/2pc").Begin(ctx, "t6", []string{"a"})
	require.NoError(t, err)
	p, err := recipes.JoinTransaction(ctx, cs[1], "/2pc", "t6", "a")
	require.NoError(t, err)
	require.NoError(t, p.Vote(ctx, true))
	ok, err := tx.Decide(ctx)
	require.NoError(t, err)
	require.True(t, ok)

	rival := recipes.NewCoordinator(cs[2], "/2pc")
	_, err = rival.Begin(ctx, "t6", []string{"a", "b"})
	require.ErrorIs(t, err, zk.ErrNodeExists, "other sites")
	again, err := rival.Begin(ctx, "t6", []string{"a"})
	require.NoError(t, err, "same sites: resumed")
	ok, err = again.Abort(ctx)
	require.NoError(t, err)
	require.True(t, ok, "already committed")
	ok, err = again.Decide(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "committed", outcomeData(t, cs[0], tx.Path()))
	ok, err = p.Outcome(ctx)
	require.NoError(t, err)
	require.True(t, ok)
}

// TestTwoPhase_LostReplies loses the replies to a join, a vote and the
// commit, each of which ran: every step finds its own write again.
func TestTwoPhase_LostReplies(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 2)
	coord, site := cs[0], cs[1]
	tx, err := recipes.NewCoordinator(coord, "/2pc").Begin(ctx, "t7", []string{"a"})
	require.NoError(t, err)

	lose := func(c *zk.Conn) {
		require.NoError(t, srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpMulti}, Session: c.SessionID(), Drop: server.DropReply}))
	}
	lose(site)
	p, err := recipes.JoinTransaction(ctx, site, "/2pc", "t7", "a")
	require.NoError(t, err, "join")
	lose(site)
	require.NoError(t, p.Vote(ctx, true), "vote")
	data, _, err := site.Get(tx.Path() + "/vote-a")
	require.NoError(t, err)
	require.Equal(t, "commit", string(data))

	lose(coord)
	ok, err := tx.Decide(ctx)
	require.NoError(t, err, "decide")
	require.True(t, ok)
	ok, err = p.Outcome(ctx)
	require.NoError(t, err)
	require.True(t, ok)
}

func TestTwoPhase_JoinAndVoteRules(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 3)
	tx, err := recipes.NewCoordinator(cs[0], "/2pc").Begin(ctx, "t8", []string{"a", "b"})
	require.NoError(t, err)
	_, err = recipes.NewCoordinator(cs[0], "/2pc").Begin(ctx, "bad", []string{"a", "a"})
	require.Error(t, err, "a site listed twice")

	_, err = recipes.JoinTransaction(ctx, cs[1], "/2pc", "nope", "a")
	require.ErrorIs(t, err, zk.ErrNoNode, "no such transaction")
	_, err = recipes.JoinTransaction(ctx, cs[1], "/2pc", "t8", "c")
	require.Error(t, err, "not a site")

	a, err := recipes.JoinTransaction(ctx, cs[1], "/2pc", "t8", "a")
	require.NoError(t, err)
	_, err = recipes.JoinTransaction(ctx, cs[2], "/2pc", "t8", "a")
	require.ErrorIs(t, err, zk.ErrNodeExists, "a is taken by another session")
	again, err := recipes.JoinTransaction(ctx, cs[1], "/2pc", "t8", "a")
	require.NoError(t, err, "joining again from the same session is a no-op")
	require.Equal(t, "a", again.Site())

	require.NoError(t, a.Vote(ctx, true))
	require.NoError(t, a.Vote(ctx, true), "the same vote again")
	require.Error(t, a.Vote(ctx, false), "votes are final")

	// b joins and withdraws: the transaction aborts.
	b, err := recipes.JoinTransaction(ctx, cs[2], "/2pc", "t8", "b")
	require.NoError(t, err)
	done, _, err := tx.Outcome(ctx)
	require.NoError(t, err)
	require.False(t, done, "undecided")
	decided := decide(ctx, tx)
	require.NoError(t, b.Leave(ctx))
	d := <-decided
	require.NoError(t, d.err)
	require.False(t, d.committed)
	_, err = a.Outcome(ctx)
	require.ErrorIs(t, err, recipes.ErrAborted)

	require.NoError(t, tx.Remove(ctx))
	_, err = a.Outcome(ctx)
	require.ErrorIs(t, err, zk.ErrNoNode, "removed")
}
