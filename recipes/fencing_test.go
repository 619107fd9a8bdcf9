package recipes_test

import (
	"context"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
)

// grantLog records grants in the order they were held.
type grantLog struct {
	mu     sync.Mutex
	tokens []recipes.Token
	kinds  []string
}

func (g *grantLog) add(kind string, t recipes.Token) {
	g.mu.Lock()
	g.tokens = append(g.tokens, t)
	g.kinds = append(g.kinds, kind)
	g.mu.Unlock()
}

func requireIncreasing(t *testing.T, tokens []recipes.Token) {
	t.Helper()
	for i := 1; i < len(tokens); i++ {
		require.Greater(t, tokens[i], tokens[i-1], "grant %d's token is not above grant %d's", i, i-1)
	}
}

// Successive holders of a lock, racing for it, get strictly increasing
// tokens, and reentrant holds share one.
func TestToken_LockSuccessiveHoldersIncrease(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	var log grantLog
	var wg sync.WaitGroup
	for _, c := range clients(t, srv, 5) {
		l := recipes.NewLock(c, "/fencing/lock")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 6 {
				if err := l.Lock(ctx); err != nil {
					t.Error(err)
					return
				}
				tok, err := l.Token(ctx)
				if err != nil {
					t.Error(err)
				}
				require.NoError(t, l.Lock(ctx)) // reentrant
				again, _ := l.Token(ctx)
				if again != tok {
					t.Errorf("reentrant hold has token %v, not %v", again, tok)
				}
				log.add("lock", tok)
				l.Unlock(ctx)
				if err := l.Unlock(ctx); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	require.Len(t, log.tokens, 30)
	requireIncreasing(t, log.tokens)
}

// Successive leaders of an election get strictly increasing tokens.
func TestToken_ElectionSuccessiveLeadersIncrease(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	var log grantLog
	var wg sync.WaitGroup
	for _, c := range clients(t, srv, 4) {
		e := recipes.NewElection(c, "/fencing/election")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				if err := e.Campaign(ctx); err != nil {
					t.Error(err)
					return
				}
				tok, err := e.Token(ctx)
				if err != nil {
					t.Error(err)
				}
				log.add("leader", tok)
				if err := e.Resign(ctx); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	require.Len(t, log.tokens, 16)
	requireIncreasing(t, log.tokens)
}

// In an RWLock, writers' tokens increase, and every grant held before a
// write grant has a smaller token than it, every grant held after it a
// larger one; readers held together are not ordered among themselves.
func TestToken_RWLockWritersOrderAllGrants(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	var log grantLog
	var wg sync.WaitGroup
	for i, c := range clients(t, srv, 6) {
		l := recipes.NewRWLock(c, "/fencing/rwlock")
		write := i%3 == 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				lock, unlock, kind := l.RLock, l.RUnlock, "read"
				if write {
					lock, unlock, kind = l.Lock, l.Unlock, "write"
				}
				if err := lock(ctx); err != nil {
					t.Error(err)
					return
				}
				tok, err := l.Token(ctx)
				if err != nil {
					t.Error(err)
				}
				log.add(kind, tok) // while held: a writer logs alone
				if err := unlock(ctx); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	require.Len(t, log.tokens, 30)
	writes := 0
	for i, kind := range log.kinds {
		if kind != "write" {
			continue
		}
		writes++
		for j := range log.tokens {
			switch {
			case j < i:
				require.Less(t, log.tokens[j], log.tokens[i], "grant %d (%s) held before write grant %d", j, log.kinds[j], i)
			case j > i:
				require.Greater(t, log.tokens[j], log.tokens[i], "grant %d (%s) held after write grant %d", j, log.kinds[j], i)
			}
		}
	}
	require.Equal(t, 10, writes)
}

// Semaphore leases are admitted in token order, but a lease with a smaller
// token can still be held after a larger one was granted: a highest-wins
// Fence would refuse a live holder.
func TestToken_SemaphoreAdmissionOrder(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 4)
	const dir = "/fencing/sem"
	sem := func(i int) *recipes.Semaphore { return recipes.NewSemaphore(cs[i], dir, 2) }
	a, err := sem(0).Acquire(ctx)
	require.NoError(t, err)
	b, err := sem(1).Acquire(ctx)
	require.NoError(t, err)
	cCh := semAcquireAsync(ctx, sem(2))
	eventually(t, func() bool { return len(semNodes(t, cs[3], dir)) == 3 }, "c queued")
	require.NoError(t, a.Release(ctx))
	c := semAdmitted(t, cCh)
	tokA, err := a.Token(ctx)
	require.ErrorIs(t, err, recipes.ErrNotHeld, "a released lease has no token")
	require.Zero(t, tokA)

	dCh := semAcquireAsync(ctx, sem(3))
	eventually(t, func() bool { return len(semNodes(t, cs[0], dir)) == 3 }, "d queued")
	require.NoError(t, c.Release(ctx))
	d := semAdmitted(t, dCh)

	tokB, err := b.Token(ctx)
	require.NoError(t, err)
	tokC, err := c.Token(ctx)
	require.ErrorIs(t, err, recipes.ErrNotHeld)
	require.Zero(t, tokC)
	tokD, err := d.Token(ctx)
	require.NoError(t, err)
	require.Less(t, tokB, tokD, "d was admitted after b")

	// b still holds its lease, yet one highest-wins mark would refuse it.
	var f recipes.Fence
	require.NoError(t, f.Accept(tokD))
	require.ErrorIs(t, f.Accept(tokB), recipes.ErrStaleToken)
	require.NoError(t, b.Release(ctx))
	require.NoError(t, d.Release(ctx))
}

// Token is an error, never a zero, when nothing is held or the hold is lost.
func TestToken_NotHeldOrLostIsAnError(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	cs := clients(t, srv, 4)
	lock := recipes.NewLock(cs[0], "/fencing/lost/lock")
	rw := recipes.NewRWLock(cs[1], "/fencing/lost/rw")
	el := recipes.NewElection(cs[2], "/fencing/lost/election")
	for name, token := range map[string]func(context.Context) (recipes.Token, error){
		"lock": lock.Token, "rwlock": rw.Token, "election": el.Token,
	} {
		_, err := token(ctx)
		require.ErrorIs(t, err, recipes.ErrNotHeld, name)
	}
	require.NoError(t, lock.Lock(ctx))
	require.NoError(t, rw.RLock(ctx))
	require.NoError(t, el.Campaign(ctx))
	lease, err := recipes.NewSemaphore(cs[3], "/fencing/lost/sem", 1).Acquire(ctx)
	require.NoError(t, err)
	holders := []struct {
		name  string
		conn  *zk.Conn
		lost  func() <-chan struct{}
		token func(context.Context) (recipes.Token, error)
	}{
		{"lock", cs[0], lock.Lost, lock.Token},
		{"rwlock", cs[1], rw.Lost, rw.Token},
		{"election", cs[2], el.Lost, el.Token},
		{"lease", cs[3], lease.Lost, lease.Token},
	}
	// Expire the four sessions at once: each client learns it when it
	// reconnects, about a second later (go-zookeeper's back-off).
	for _, h := range holders {
		tok, err := h.token(ctx)
		require.NoError(t, err, h.name)
		require.Positive(t, int64(tok), h.name)
		require.NoError(t, srv.ExpireSession(ctx, h.conn.SessionID()))
	}
	for _, h := range holders {
		<-h.lost()
		tok, err := h.token(ctx)
		require.ErrorIs(t, err, recipes.ErrSessionLost, h.name)
		require.Zero(t, tok, h.name)
	}
}
