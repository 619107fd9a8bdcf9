package recipes_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/zkraft/zkraft/recipes"
)

// Two clients take turns holding one lock; each waits only for the holder
// just ahead of it.
func ExampleLock() {
	connect, stop := barrierExampleServer() // an in-process zkraft server
	defer stop()
	ctx := context.Background()

	first := recipes.NewLock(connect(), "/app/lock", recipes.WithData([]byte("worker-1")))
	second := recipes.NewLock(connect(), "/app/lock", recipes.WithData([]byte("worker-2")))
	if err := first.Lock(ctx); err != nil {
		panic(err)
	}
	holder, _ := recipes.Holder(ctx, connect(), "/app/lock")
	fmt.Println("held by", string(holder))

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := second.Lock(ctx); err != nil { // blocks until first unlocks
			panic(err)
		}
		select {
		case <-second.Lost(): // closed if its session expires while it holds the lock
		default:
			fmt.Println("worker-2 holds it")
		}
		second.Unlock(ctx)
	}()
	ok, _ := recipes.NewLock(connect(), "/app/lock").TryLock(ctx)
	fmt.Println("TryLock while held:", ok)
	first.Unlock(ctx)
	wg.Wait()
	// Output:
	// held by worker-1
	// TryLock while held: false
	// worker-2 holds it
}
