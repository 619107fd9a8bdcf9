package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
)

// A coordinator asks two sites whether to commit. Each site joins the
// transaction, votes once it has prepared, and waits for the outcome; the
// coordinator decides when every vote is in, or aborts as soon as one
// site votes abort, dies or leaves, or when its context ends.
func ExampleCoordinator() {
	test := func(t *testing.T) {
		srv := integration.StartServer(t)
		coordConn, _ := srv.Connect(t)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()

		tx, err := recipes.NewCoordinator(coordConn, "/app/tx").Begin(ctx, "order-42", []string{"billing", "shipping"})
		if err != nil {
			t.Fatal(err)
		}
		for _, site := range tx.Sites() { // each site runs on its own client
			conn, _ := srv.Connect(t)
			go func() {
				p, err := recipes.JoinTransaction(ctx, conn, "/app/tx", "order-42", site)
				if err != nil {
					return // the coordinator aborts when its context ends
				}
				p.Vote(ctx, true) // prepared: vote commit
				if _, err := p.Outcome(ctx); errors.Is(err, recipes.ErrAborted) {
					return // roll back
				}
				// commit
			}()
		}
		committed, err := tx.Decide(ctx)
		if err != nil || !committed {
			t.Fatalf("committed %v, err %v", committed, err)
		}
	}
	_ = test
}

// Clients add to a shared counter; every Add is one atomic step, even when
// its reply is lost to a connection loss.
func ExampleCounter() {
	test := func(t *testing.T) {
		srv := integration.StartServer(t)
		conn, _ := srv.Connect(t)
		ctx := context.Background()

		hits := recipes.NewCounter(conn, "/app/hits", 0)
		n, err := hits.Add(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("hits:", n) // the value after this Add

		// Reset it, but only if nobody has added since.
		if ok, err := hits.CompareAndSet(ctx, n, 0); err != nil || !ok {
			t.Fatalf("reset: %v %v", ok, err)
		}
	}
	_ = test
}

// A service follows its configuration node: the first update is the
// current value, then one comes after each change, and the latest value
// always arrives.
func ExampleWatchConfig() {
	test := func(t *testing.T) {
		srv := integration.StartServer(t)
		conn, _ := srv.Connect(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel() // closes the channel

		go func() {
			conn.Create("/app", nil, 0, zk.WorldACL(zk.PermAll))
			conn.Create("/app/config", []byte("workers=4"), 0, zk.WorldACL(zk.PermAll))
		}()
		for u := range recipes.WatchConfig(ctx, conn, "/app/config") {
			if !u.Exists {
				continue // no configuration yet (or deleted): keep the defaults
			}
			fmt.Printf("config: %s\n", u.Data)
			if string(u.Data) == "workers=4" {
				return
			}
		}
	}
	_ = test
}
