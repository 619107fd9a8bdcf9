package integration_test

import (
	"context"
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// A test that needs a ZooKeeper starts one in-process in milliseconds; it
// is stopped when the test ends.
func ExampleStartServer() {
	testSomething := func(t *testing.T) {
		srv := integration.StartServer(t)
		conn, _ := srv.Connect(t)
		if _, err := conn.Create("/app", []byte("config"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		// ... exercise code that talks to srv.Addr() ...
	}
	_ = testSomething
}

// A test can expire a session on demand, or let it time out on a fake
// clock without waiting.
func ExampleServer_ExpireSession() {
	testExpiry := func(t *testing.T) {
		srv := integration.StartServer(t, integration.WithFakeClock())
		owner, events := srv.Connect(t)
		owner.Create("/lock", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))

		// Either expire it now...
		if err := srv.ExpireSession(context.Background(), owner.SessionID()); err != nil {
			t.Fatal(err)
		}
		// ...or move the server's clock past the session timeout:
		// srv.Clock.Advance(time.Minute)
		for ev := range events {
			if ev.State == zk.StateExpired {
				break // the client saw its session expire; /lock is gone
			}
		}
	}
	_ = testExpiry
}

// A test can run a three-node ensemble and kill its leader.
func ExampleStartCluster() {
	testFailover := func(t *testing.T) {
		c := integration.StartCluster(t, 3)
		conn, _ := c.Connect(t) // knows every server's address
		conn.Create("/before", nil, 0, zk.WorldACL(zk.PermAll))

		c.Kill(c.Leader()) // a crash; Stop would hand leadership over first
		c.WaitForLeader()
		if _, err := conn.Create("/after", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err) // the client followed the ensemble to its new leader
		}
	}
	_ = testFailover
}

// A test can make the server lose the reply to a request that did run,
// to check that the code under test recovers (here, finds its node again).
func ExampleServer_InjectFault() {
	testLostReply := func(t *testing.T) {
		srv := integration.StartServer(t)
		conn, _ := srv.Connect(t)
		srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpCreate}, Drop: server.DropReply})

		_, err := conn.Create("/job", nil, 0, zk.WorldACL(zk.PermAll))
		if !errors.Is(err, zk.ErrConnectionClosed) {
			t.Fatalf("want a lost reply, got %v", err)
		}
		if ok, _, _ := conn.Exists("/job"); !ok { // the client reconnected with its session
			t.Fatal("the create ran although its reply was lost")
		}
	}
	_ = testLostReply
}
