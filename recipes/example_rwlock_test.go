package recipes_test

import (
	"context"
	"testing"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
)

// Readers share the lock; a writer has it to itself. A reader that comes
// after a waiting writer queues behind it.
func ExampleRWLock() {
	testCache := func(t *testing.T) {
		srv := integration.StartServer(t)
		conn, _ := srv.Connect(t)
		ctx := context.Background()
		l := recipes.NewRWLock(conn, "/app/cache-lock")

		if err := l.RLock(ctx); err != nil {
			t.Fatal(err)
		}
		// ... read the shared state; other readers may be reading too ...
		select {
		case <-l.Lost():
			t.Fatal("session lost while reading: the state may have changed")
		default:
		}
		l.RUnlock(ctx)

		if err := l.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		// ... rewrite the shared state, alone ...
		l.Unlock(ctx)
	}
	_ = testCache
}

// A holder releases the lock when another client asks for it with Revoke.
func ExampleRevocableLock() {
	testHandOver := func(t *testing.T) {
		srv := integration.StartServer(t)
		holderConn, _ := srv.Connect(t)
		otherConn, _ := srv.Connect(t)
		ctx := context.Background()

		l := recipes.NewRevocableLock(holderConn, "/app/printer", recipes.WithData([]byte("job-41")))
		if err := l.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		go func() {
			<-l.Revoked() // someone wants the printer: finish the page, then let go
			l.Unlock(ctx)
		}()

		urgent := recipes.NewRevocableLock(otherConn, "/app/printer", recipes.WithData([]byte("job-42")))
		if err := recipes.Revoke(ctx, otherConn, "/app/printer"); err != nil {
			t.Fatal(err)
		}
		if err := urgent.Lock(ctx); err != nil { // granted once job-41 lets go
			t.Fatal(err)
		}
		urgent.Unlock(ctx)
	}
	_ = testHandOver
}

// At most three workers hold a lease at once, however many ask.
func ExampleSemaphore() {
	testWorkers := func(t *testing.T) {
		srv := integration.StartServer(t)
		conn, _ := srv.Connect(t)
		ctx := context.Background()
		sem := recipes.NewSemaphore(conn, "/app/db-slots", 3)

		lease, err := sem.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer lease.Release(ctx)
		// ... use one of the three slots; stop if lease.Lost() is closed ...

		if extra, err := sem.TryAcquire(ctx); err == nil && extra != nil {
			extra.Release(ctx) // a second slot was free too
		}
	}
	_ = testWorkers
}
