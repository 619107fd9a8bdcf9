package recipes_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
)

// rwNodes lists dir's children with their protected tags stripped, sorted
// by sequence ("read-0000000001", "write-0000000002", ...).
func rwNodes(t *testing.T, c *zk.Conn, dir string) []string {
	t.Helper()
	kids, _, err := c.Children(dir)
	require.NoError(t, err)
	out := make([]string, 0, len(kids))
	for _, k := range kids {
		if i := strings.IndexByte(k, '-'); strings.HasPrefix(k, "_c_") && i >= 0 {
			k = k[i+1:]
		}
		out = append(out, k)
	}
	// The sequence number is the last ten digits.
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(a[len(a)-10:], b[len(b)-10:]) })
	return out
}

// rwKinds returns the kinds ("read" or "write") of dir's nodes in line order.
func rwKinds(t *testing.T, c *zk.Conn, dir string) []string {
	t.Helper()
	var out []string
	for _, n := range rwNodes(t, c, dir) {
		out = append(out, n[:strings.IndexByte(n, '-')])
	}
	return out
}

// stillWaiting reports whether ch has delivered nothing yet.
func stillWaiting[T any](ch <-chan T) bool {
	select {
	case <-ch:
		return false
	default:
		return true
	}
}

func TestRWLock_ReadersShare(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/rw/share"
	cs := clients(t, srv, 5)
	readers := make([]*recipes.RWLock, 3)
	for i := range readers {
		readers[i] = recipes.NewRWLock(cs[i], dir)
		require.NoError(t, readers[i].RLock(ctx), "reader %d holds alongside the others", i)
	}
	require.Equal(t, []string{"read", "read", "read"}, rwKinds(t, cs[0], dir))

	writer := recipes.NewRWLock(cs[3], dir)
	ok, err := writer.TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "readers hold the lock")
	require.Len(t, rwNodes(t, cs[0], dir), 3, "a failed TryLock leaves no node")

	fourth := recipes.NewRWLock(cs[4], dir)
	ok, err = fourth.TryRLock(ctx)
	require.NoError(t, err)
	require.True(t, ok, "one more reader is welcome")

	got := make(chan error, 1)
	go func() { got <- writer.Lock(ctx) }()
	eventually(t, func() bool { return len(rwNodes(t, cs[0], dir)) == 5 }, "writer queued")
	for i, r := range append(readers, fourth) {
		require.True(t, stillWaiting(got), "the writer waits while %d readers hold", 4-i)
		require.NoError(t, r.RUnlock(ctx))
	}
	require.NoError(t, <-got, "the writer gets the lock once the last reader leaves")
	require.Equal(t, []string{"write"}, rwKinds(t, cs[0], dir))
	require.NoError(t, writer.Unlock(ctx))
}

func TestRWLock_WriterExcludes(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/rw/exclude"
	cs := clients(t, srv, 3)
	writer := recipes.NewRWLock(cs[0], dir)
	require.NoError(t, writer.Lock(ctx))

	other := recipes.NewRWLock(cs[1], dir)
	ok, err := other.TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "a second writer is refused")
	ok, err = other.TryRLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "a reader is refused")
	require.Equal(t, []string{"write"}, rwKinds(t, cs[0], dir), "failed tries leave no node")

	reader := recipes.NewRWLock(cs[2], dir)
	rgot := make(chan error, 1)
	go func() { rgot <- reader.RLock(ctx) }()
	eventually(t, func() bool { return len(rwNodes(t, cs[0], dir)) == 2 }, "reader queued")
	wgot := make(chan error, 1)
	go func() { wgot <- other.Lock(ctx) }()
	eventually(t, func() bool { return len(rwNodes(t, cs[0], dir)) == 3 }, "second writer queued")
	require.True(t, stillWaiting(rgot) && stillWaiting(wgot), "both wait while the writer holds")

	require.NoError(t, writer.Unlock(ctx))
	require.NoError(t, <-rgot, "the reader ahead of the second writer goes first")
	require.True(t, stillWaiting(wgot), "the second writer waits for the reader")
	require.NoError(t, reader.RUnlock(ctx))
	require.NoError(t, <-wgot)
	require.NoError(t, other.Unlock(ctx))
	require.Empty(t, rwNodes(t, cs[0], dir))
}

// TestRWLock_ReaderQueuesBehindWriter checks that a reader arriving after a
// queued writer waits for it although only readers hold the lock, so that
// readers cannot starve writers.
func TestRWLock_ReaderQueuesBehindWriter(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/rw/order"
	cs := clients(t, srv, 3)
	r1, w, r2 := recipes.NewRWLock(cs[0], dir), recipes.NewRWLock(cs[1], dir), recipes.NewRWLock(cs[2], dir)
	require.NoError(t, r1.RLock(ctx))

	wgot := make(chan error, 1)
	go func() { wgot <- w.Lock(ctx) }()
	eventually(t, func() bool { return len(rwNodes(t, cs[0], dir)) == 2 }, "writer queued")

	ok, err := r2.TryRLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "a writer is waiting")
	rgot := make(chan error, 1)
	go func() { rgot <- r2.RLock(ctx) }()
	eventually(t, func() bool { return len(rwNodes(t, cs[0], dir)) == 3 }, "second reader queued")
	require.Equal(t, []string{"read", "write", "read"}, rwKinds(t, cs[0], dir))
	require.True(t, stillWaiting(wgot) && stillWaiting(rgot))

	require.NoError(t, r1.RUnlock(ctx))
	require.NoError(t, <-wgot, "the writer gets the lock")
	require.True(t, stillWaiting(rgot), "the second reader still waits for the writer")
	require.NoError(t, w.Unlock(ctx))
	require.NoError(t, <-rgot)
	require.NoError(t, r2.RUnlock(ctx))
}

// TestRWLock_Exclusion runs readers and writers, each on its own client,
// and checks that a writer is always alone.
func TestRWLock_Exclusion(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/rw/stress"
	const contenders, rounds = 8, 10
	var readers, maxReaders, writers, violations, reads, writes atomic.Int32
	var wg sync.WaitGroup
	for i, c := range clients(t, srv, contenders) {
		l := recipes.NewRWLock(c, dir)
		write := i%3 == 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				if write {
					if err := l.Lock(ctx); err != nil {
						t.Error(err)
						return
					}
					if writers.Add(1) != 1 || readers.Load() != 0 {
						violations.Add(1)
					}
					writes.Add(1)
					if _, _, err := c.Exists(dir); err != nil {
						t.Error(err)
					}
					if writers.Load() != 1 || readers.Load() != 0 {
						violations.Add(1)
					}
					writers.Add(-1)
					if err := l.Unlock(ctx); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				if err := l.RLock(ctx); err != nil {
					t.Error(err)
					return
				}
				n := readers.Add(1)
				for m := maxReaders.Load(); n > m && !maxReaders.CompareAndSwap(m, n); m = maxReaders.Load() {
				}
				if writers.Load() != 0 {
					violations.Add(1)
				}
				reads.Add(1)
				// A round trip while holding, so that holds overlap.
				if _, _, err := c.Exists(dir); err != nil {
					t.Error(err)
				}
				if writers.Load() != 0 {
					violations.Add(1)
				}
				readers.Add(-1)
				if err := l.RUnlock(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.Zero(t, violations.Load(), "a writer held the lock together with someone else")
	require.Equal(t, int32(3*rounds), writes.Load())
	require.Equal(t, int32(5*rounds), reads.Load())
	require.Empty(t, rwNodes(t, clients(t, srv, 1)[0], dir))
	t.Logf("up to %d readers held the lock at once", maxReaders.Load())
}

func TestRWLock_CancelledWaitersLeaveNoNode(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/rw/cancel"
	cs := clients(t, srv, 3)
	writer := recipes.NewRWLock(cs[0], dir)
	require.NoError(t, writer.Lock(ctx))

	// A reader that times out.
	tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, recipes.NewRWLock(cs[1], dir).RLock(tctx), context.DeadlineExceeded)
	require.Equal(t, []string{"write"}, rwKinds(t, cs[0], dir), "the reader removed its node")

	// A writer cancelled while it waits.
	cctx, cancel2 := context.WithCancel(ctx)
	got := make(chan error, 1)
	go func() { got <- recipes.NewRWLock(cs[2], dir).Lock(cctx) }()
	eventually(t, func() bool { return len(rwNodes(t, cs[0], dir)) == 2 }, "writer queued")
	cancel2()
	require.ErrorIs(t, <-got, context.Canceled)
	require.Equal(t, []string{"write"}, rwKinds(t, cs[0], dir), "the writer removed its node")

	require.NoError(t, writer.Unlock(ctx))
	require.Empty(t, rwNodes(t, cs[0], dir))
}

func TestRWLock_HolderSessionExpiry(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/rw/expiry"
	cs := clients(t, srv, 2)
	reader, writer := recipes.NewRWLock(cs[0], dir), recipes.NewRWLock(cs[1], dir)
	require.Nil(t, reader.Lost(), "nothing held")
	require.NoError(t, reader.RLock(ctx))
	lost := reader.Lost()
	require.NotNil(t, lost)

	got := make(chan error, 1)
	go func() { got <- writer.Lock(ctx) }()
	eventually(t, func() bool { return len(rwNodes(t, cs[1], dir)) == 2 }, "writer queued")

	require.NoError(t, srv.ExpireSession(ctx, cs[0].SessionID()))
	select {
	case <-lost:
	case <-ctx.Done():
		t.Fatal("the reader was not told it lost the lock")
	}
	require.NoError(t, <-got, "the writer gets the lock")
	require.ErrorIs(t, reader.RUnlock(ctx), recipes.ErrSessionLost)
	require.ErrorIs(t, reader.RUnlock(ctx), recipes.ErrNotHeld)

	// The writer's loss is reported the same way; here another client
	// deletes its node.
	wlost := writer.Lost()
	require.True(t, stillWaiting(wlost))
	require.NoError(t, cs[0].Delete(writer.Node(), -1))
	select {
	case <-wlost:
	case <-ctx.Done():
		t.Fatal("the writer was not told it lost the lock")
	}
	require.ErrorIs(t, writer.Unlock(ctx), recipes.ErrSessionLost)
	require.Nil(t, writer.Lost(), "nothing held")
}

func TestRWLock_ReentrancyAndSides(t *testing.T) {
	srv := integration.StartServer(t)
	ctx := testCtx(t)
	const dir = "/rw/sides"
	cs := clients(t, srv, 2)
	l, other := recipes.NewRWLock(cs[0], dir, recipes.WithData([]byte("me"))), recipes.NewRWLock(cs[1], dir)
	require.ErrorIs(t, l.RUnlock(ctx), recipes.ErrNotHeld)
	require.ErrorIs(t, l.Unlock(ctx), recipes.ErrNotHeld)

	require.NoError(t, l.RLock(ctx))
	require.NoError(t, l.RLock(ctx), "reentrant read")
	require.Len(t, rwNodes(t, cs[0], dir), 1, "one node for both holds")
	data, _, err := cs[1].Get(l.Node())
	require.NoError(t, err)
	require.Equal(t, "me", string(data))
	require.ErrorIs(t, l.Lock(ctx), recipes.ErrOtherSide)
	ok, err := l.TryLock(ctx)
	require.ErrorIs(t, err, recipes.ErrOtherSide)
	require.False(t, ok)
	require.NoError(t, l.RUnlock(ctx))
	ok, err = other.TryLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "still read-held once")
	require.NoError(t, l.RUnlock(ctx))
	require.Equal(t, "", l.Node())

	require.NoError(t, l.Lock(ctx))
	ok, err = l.TryLock(ctx)
	require.NoError(t, err)
	require.True(t, ok, "reentrant write")
	require.ErrorIs(t, l.RLock(ctx), recipes.ErrOtherSide)
	require.NoError(t, l.Unlock(ctx))
	ok, err = other.TryRLock(ctx)
	require.NoError(t, err)
	require.False(t, ok, "still write-held once")
	require.NoError(t, l.Unlock(ctx))
	ok, err = other.TryRLock(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, other.RUnlock(ctx))
}
