package recipes_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
)

// These tests reproduce the paused lock holder of the classic critique of
// distributed locks, and show fencing stop it. The holder's client sits
// behind a freezer: frozen, it hears nothing from the server, so its
// session expires while its code still believes it holds the lock. The
// next contender takes the lock and writes. Then the holder wakes and
// writes too: through a guarded multi (refused by the server, nothing
// changed), through a Fence in front of a resource outside ZooKeeper
// (refused), and, to show what fencing prevents, without either (the
// write lands over the new holder's: the failure).

// fencedStore is a resource outside ZooKeeper that takes writes through a
// Fence, or around it to show the failure.
type fencedStore struct {
	fence recipes.Fence
	mu    sync.Mutex
	value string
}

func (s *fencedStore) write(t recipes.Token, v string) error {
	return s.fence.Do(t, func() error { s.set(v); return nil })
}

func (s *fencedStore) set(v string) {
	s.mu.Lock()
	s.value = v
	s.mu.Unlock()
}

func (s *fencedStore) get() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value
}

// pausedHolder is the scene: the holder's client behind a freezer, the
// next contender's client, and expire, which makes the frozen holder's
// session end (given the holder's lock node, which it waits to see gone
// or leaves to the next contender's Lock to wait for).
type pausedHolder struct {
	px      *freezer
	holder  *zk.Conn
	next    *zk.Conn
	expire  func(node string)
	data    string // a znode the lock protects
	dir     string
	tokenOK func(t *testing.T, paused, next recipes.Token)
}

func (p pausedHolder) run(t *testing.T) {
	ctx := testCtx(t)
	_, err := p.next.Create(p.data, []byte("initial"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	var store fencedStore

	// The holder takes the lock and writes, guarded and fenced.
	held := recipes.NewLock(p.holder, p.dir)
	require.NoError(t, held.Lock(ctx))
	paused, err := held.Token(ctx)
	require.NoError(t, err)
	_, err = held.GuardedMulti(ctx, &zk.SetDataRequest{Path: p.data, Data: []byte("holder-1"), Version: -1})
	require.NoError(t, err)
	require.NoError(t, store.write(paused, "holder-1"))

	// It pauses; its session expires; the next contender takes over.
	oldSession := p.holder.SessionID()
	p.px.Freeze()
	p.expire(held.Node())
	next := recipes.NewLock(p.next, p.dir)
	require.NoError(t, next.Lock(ctx))
	t.Cleanup(func() { next.Unlock(context.Background()) })
	token, err := next.Token(ctx)
	require.NoError(t, err)
	require.Greater(t, token, paused, "the next holder's token is larger")
	p.tokenOK(t, paused, token)
	_, err = next.GuardedMulti(ctx, &zk.SetDataRequest{Path: p.data, Data: []byte("next-1"), Version: -1})
	require.NoError(t, err)
	require.NoError(t, store.write(token, "next-1"))
	select {
	case <-held.Lost():
		t.Fatal("the frozen holder heard of its loss: the pause is not one")
	default:
	}

	// The holder wakes. Its client reconnects and learns that its session
	// expired; its code, which was paused just before writing, writes.
	t0 := time.Now()
	p.px.Thaw()
	eventually(t, func() bool {
		return p.holder.State() == zk.StateHasSession && p.holder.SessionID() != oldSession
	}, "the woken holder's client to get a new session")

	t.Logf("new session after %v", time.Since(t0))
	_, err = held.GuardedMulti(ctx, &zk.SetDataRequest{Path: p.data, Data: []byte("holder-2"), Version: -1})
	require.ErrorIs(t, err, recipes.ErrGrantLost, "guarded write of the stale holder")
	require.Equal(t, "next-1", getData(t, p.next, p.data), "the guarded write changed nothing")

	require.ErrorIs(t, store.write(paused, "holder-2"), recipes.ErrStaleToken, "fenced write of the stale holder")
	require.Equal(t, "next-1", store.get(), "the fenced write changed nothing")

	// Without fencing, the same writes land over the new holder's.
	_, err = p.holder.Set(p.data, []byte("holder-2"), -1)
	require.NoError(t, err)
	require.Equal(t, "holder-2", getData(t, p.next, p.data), "unguarded: the stale holder overwrote the new one")
	store.set("holder-2")
	require.Equal(t, "holder-2", store.get(), "unfenced: the stale holder overwrote the new one")

	require.ErrorIs(t, held.Unlock(ctx), recipes.ErrSessionLost)
}

// getData reads p up to date: after a sync, so that on an ensemble a
// write made through another server is seen.
func getData(t *testing.T, c *zk.Conn, p string) string {
	t.Helper()
	_, err := c.Sync(p)
	require.NoError(t, err)
	data, _, err := c.Get(p)
	require.NoError(t, err)
	return string(data)
}

// TestFencing_PausedHolderFakeClock: a standalone server on a fake clock;
// the clock moves past the frozen holder's session timeout while the next
// contender's client keeps its own session alive with requests.
func TestFencing_PausedHolderFakeClock(t *testing.T) {
	srv := integration.StartServer(t, integration.WithFakeClock())
	px := startFreezer(t, srv.Addr())
	holder := connectVia(t, 10*time.Second, px.Addr())
	next, _ := srv.Connect(t)
	pausedHolder{
		px: px, holder: holder, next: next,
		dir: "/fence/fake/lock", data: "/fence-fake-data",
		expire: func(node string) {
			for range 60 {
				ok, _, gone, err := next.ExistsW(node) // also touches next's session
				require.NoError(t, err)
				if !ok {
					return
				}
				srv.Clock.Advance(2 * time.Second) // under next's 10 s timeout
				select {
				case <-gone:
				case <-time.After(100 * time.Millisecond): // not yet: advance again
				}
			}
			t.Fatal("the frozen holder's session did not expire after 120 s of fake time")
		},
		tokenOK: func(*testing.T, recipes.Token, recipes.Token) {},
	}.run(t)
}

// TestFencing_PausedHolderLeaderKill: a three-server ensemble; the
// holder's client (1 s session, through a freezer to a follower) freezes,
// the leader is killed, and the new leader expires the holder's session.
// The next contender, on the other follower, contends only under the new
// leader, so its token also carries the new epoch.
func TestFencing_PausedHolderLeaderKill(t *testing.T) {
	c := integration.StartCluster(t, 3)
	leader := c.WaitForLeader()
	var followers []int
	for i := range c.Servers {
		if i != leader {
			followers = append(followers, i)
		}
	}
	px := startFreezer(t, c.Servers[followers[0]].Addr())
	holder := connectVia(t, time.Second, px.Addr())
	next := connectVia(t, 4*time.Second, c.Servers[followers[1]].Addr())
	pausedHolder{
		px: px, holder: holder, next: next,
		dir: "/fence/kill/lock", data: "/fence-kill-data",
		expire: func(string) {
			c.Kill(leader)
			c.WaitForLeader()
			// next's Lock waits for the new leader to expire the holder.
		},
		tokenOK: func(t *testing.T, paused, next recipes.Token) {
			require.Greater(t, int64(next)>>32, int64(paused)>>32, "the next token carries a later epoch (%v, %v)", paused, next)
		},
	}.run(t)
}
