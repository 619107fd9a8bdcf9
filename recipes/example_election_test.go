package recipes_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/recipes"
)

// A service runs on several hosts and one of them leads: each host
// campaigns, works as the leader while it leads, and stops at once when
// it loses leadership.
func ExampleElection() {
	leaderOnly := func(t *testing.T) {
		srv := integration.StartServer(t)
		conn, _ := srv.Connect(t)
		ctx := context.Background()

		e := recipes.NewElection(conn, "/app/leader", recipes.WithData([]byte("host-1:8080")))
		if err := e.Campaign(ctx); err != nil { // blocks until this host leads
			t.Fatal(err)
		}
		who, _ := recipes.CurrentLeader(ctx, conn, "/app/leader") // anyone can ask
		fmt.Printf("%s leads\n", who)

		work := make(chan struct{}) // the leader's work, done when it ends
		close(work)
		select {
		case <-work:
			e.Resign(ctx) // the next host in line leads
		case <-e.Lost():
			// The session expired: stop acting as the leader, and
			// Campaign again to get back in line.
		}
	}
	_ = leaderOnly
}

// Observers follow who leads without standing.
func ExampleObserveLeader() {
	follow := func(t *testing.T) {
		srv := integration.StartServer(t)
		conn, _ := srv.Connect(t)
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		for li := range recipes.ObserveLeader(ctx, conn, "/app/leader") {
			if li.Node == "" {
				fmt.Println("no leader")
				continue
			}
			fmt.Printf("leader is %s\n", li.Data)
		}
	}
	_ = follow
}

// Workers join a group while they are up; a coordinator follows the
// group's members.
func ExampleJoinGroup() {
	workers := func(t *testing.T) {
		srv := integration.StartServer(t)
		worker, _ := srv.Connect(t)
		coordinator, _ := srv.Connect(t)
		ctx, stop := context.WithCancel(context.Background())
		defer stop()

		m, err := recipes.JoinGroup(ctx, worker, "/app/workers", "worker-1", []byte("10.0.0.1"))
		if err != nil {
			t.Fatal(err)
		}
		defer m.Leave(ctx)

		for members := range recipes.WatchMembers(ctx, coordinator, "/app/workers") {
			fmt.Println("workers:", members) // again on every join and leave
			if len(members) == 1 {
				break
			}
		}
	}
	_ = workers
}

// A service instance registers itself for as long as it runs (again on a
// new session if its session expires); clients find it.
func ExampleRegister() {
	discovery := func(t *testing.T) {
		srv := integration.StartServer(t)
		app, _ := srv.Connect(t)
		client, _ := srv.Connect(t)
		ctx := context.Background()

		reg, err := recipes.Register(ctx, app, "/services", "api", recipes.Instance{
			ID: "api-1", Address: "10.0.0.1", Port: 8080, Payload: map[string]string{"version": "2"},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer reg.Deregister(ctx)

		instances, err := recipes.Instances(ctx, client, "/services", "api")
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range instances {
			fmt.Printf("%s at %s:%d\n", in.ID, in.Address, in.Port)
		}
		// recipes.WatchInstances follows them as they come and go.
	}
	_ = discovery
}
