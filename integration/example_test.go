package integration_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// Each example below is the body of a test, func(t testing.TB), as it
// would sit in TestXxx(t *testing.T). go test runs them through asTest
// (see the end of this file), which stands in for the *testing.T a test
// gets, and checks what they print.

// A test that needs a ZooKeeper starts one in-process in milliseconds, on
// 127.0.0.1 and a free port; it is stopped when the test ends.
func ExampleStartServer() {
	asTest(func(t testing.TB) {
		srv := integration.StartServer(t)
		conn, _ := srv.Connect(t) // a go-zookeeper *zk.Conn with its session; closed when the test ends
		if _, err := conn.Create("/app", []byte("config"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		// ... exercise code that talks to srv.Addr() ...
		data, stat, err := conn.Get("/app")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%s version=%d\n", data, stat.Version)
	})
	// Output: config version=0
}

// On a fake clock a session times out without real waiting.
func ExampleWithFakeClock() {
	asTest(func(t testing.TB) {
		srv := integration.StartServer(t, integration.WithFakeClock())
		owner, events := srv.Connect(t)
		if _, err := owner.Create("/lock", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		srv.Clock.Advance(time.Minute) // past the session timeout: the server expires it
		waitState(t, events, zk.StateExpired)

		other, _ := srv.Connect(t)
		held, _, err := other.Exists("/lock")
		fmt.Println("session expired; /lock exists:", held, err)
	})
	// Output: session expired; /lock exists: false <nil>
}

// A test can expire a session on demand.
func ExampleServer_ExpireSession() {
	asTest(func(t testing.TB) {
		srv := integration.StartServer(t)
		owner, events := srv.Connect(t)
		watcher, _ := srv.Connect(t)
		owner.Create("/lock", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		_, _, gone, _ := watcher.ExistsW("/lock")

		if err := srv.ExpireSession(t.Context(), owner.SessionID()); err != nil {
			t.Fatal(err)
		}
		ev := <-gone // the ephemeral's watch fires on every replica's clients
		fmt.Println(ev.Type, ev.Path)
		waitState(t, events, zk.StateExpired) // the owner learns it when it reconnects
		fmt.Println("owner:", zk.StateExpired)
	})
	// Output:
	// EventNodeDeleted /lock
	// owner: StateExpired
}

// A test can close a client's connection from the server side, as a
// network fault would: the client reconnects and keeps its session, so its
// ephemerals stay.
func ExampleServer_DropConnection() {
	asTest(func(t testing.TB) {
		srv := integration.StartServer(t)
		conn, events := srv.Connect(t)
		conn.Create("/member", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		before := conn.SessionID()

		fmt.Println("dropped:", srv.DropConnection(before))
		waitState(t, events, zk.StateDisconnected)
		waitState(t, events, zk.StateHasSession)
		there, _, err := conn.Exists("/member")
		fmt.Println("same session:", conn.SessionID() == before, "/member exists:", there, err)
	})
	// Output:
	// dropped: true
	// same session: true /member exists: true <nil>
}

// A test can make the server lose the reply to a request that did run,
// to check that the code under test recovers (here, finds its node again).
func ExampleServer_InjectFault() {
	asTest(func(t testing.TB) {
		srv := integration.StartServer(t)
		conn, _ := srv.Connect(t)
		if err := srv.InjectFault(server.Fault{Ops: []wire.Op{wire.OpCreate}, Drop: server.DropReply}); err != nil {
			t.Fatal(err)
		}
		_, err := conn.Create("/job", nil, 0, zk.WorldACL(zk.PermAll))
		fmt.Println("create:", errors.Is(err, zk.ErrConnectionClosed))

		ran, _, err := conn.Exists("/job") // the client reconnected with its session
		fmt.Println("/job exists:", ran, err)
	})
	// Output:
	// create: true
	// /job exists: true <nil>
}

// A test can look at the server's replicated state for its assertions and
// failure messages.
func ExampleServer_DumpTree() {
	asTest(func(t testing.TB) {
		srv := integration.StartServer(t)
		conn, _ := srv.Connect(t)
		conn.Create("/app", []byte("v1"), 0, zk.WorldACL(zk.PermAll))
		conn.Set("/app", []byte("v22"), 0)
		conn.Create("/app/lease", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
		conn.ExistsW("/app")

		for _, line := range strings.Split(srv.DumpTree(), "\n") {
			if strings.HasPrefix(line, "/app") {
				fmt.Println(strings.Split(line, " owner=")[0]) // the owner is the session id
			}
		}
		fmt.Println("sessions:", len(srv.Sessions()))
		fmt.Println("ephemerals:", srv.Ephemerals()[conn.SessionID()])
		fmt.Println("watched paths:", keys(srv.WatchesByPath()))
	})
	// Output:
	// /app len=3 version=1 children=1
	// /app/lease len=0 version=0 children=0
	// sessions: 1
	// ephemerals: [/app/lease]
	// watched paths: [/app]
}

// A test can run a durable three-node ensemble over loopback TCP and crash
// its leader: the client follows the ensemble to the new one.
func ExampleStartCluster() {
	asTest(func(t testing.TB) {
		c := integration.StartCluster(t, 3)
		conn, _ := c.Connect(t) // knows every server's address
		conn.Create("/before", nil, 0, zk.WorldACL(zk.PermAll))

		old := c.Leader()
		c.Kill(old) // a crash; Stop(i) shuts down cleanly, handing leadership over first
		fmt.Println("new leader:", c.WaitForLeader() != old)
		if _, err := conn.Create("/after", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		names, _, _ := conn.Children("/")
		sort.Strings(names)
		fmt.Println(names)
	})
	// Output:
	// new leader: true
	// [after before zookeeper]
}

// A test can cut a server off from the others and restart one from its
// data directory; a restarted server catches up with what it missed.
func ExampleCluster_Partition() {
	asTest(func(t testing.TB) {
		c := integration.StartCluster(t, 3)
		c.Partition([]int{0}, []int{1, 2}) // server 0 alone: the others keep a quorum
		c.WaitForLeaderAmong(1, 2)         // they elect a new leader if server 0 led
		conn, _ := c.Connect(t, c.Servers[1].Addr())
		if _, err := conn.Create("/while-cut-off", []byte("x"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		c.Heal()

		c.Restart(0) // stopped cleanly, then started from its data directory
		zero, _ := c.Connect(t, c.Servers[0].Addr())
		zero.Sync("/while-cut-off") // a read after sync sees every write before it
		data, _, err := zero.Get("/while-cut-off")
		fmt.Printf("server 0 reads %q %v\n", data, err)
	})
	// Output: server 0 reads "x" <nil>
}

// waitState waits for the client's connection to reach state.
func waitState(t testing.TB, events <-chan zk.Event, state zk.State) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == state {
				return
			}
		case <-timeout:
			t.Fatalf("no %v within 10s", state)
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// asTest runs body as a test would, with a stand-in for *testing.T: the
// harness's cleanups run when body returns, and Fatal, like a failing
// test, ends the example (go test then reports it as failed).
func asTest(body func(t testing.TB)) {
	t := &exampleT{}
	defer t.cleanup()
	body(t)
}

// exampleT is the testing.TB an example runs with. It provides what the
// harness and the examples call (Helper, Cleanup, TempDir, Context,
// Fatal/Fatalf, Logf); any other
// method panics on the nil embedded TB.
type exampleT struct {
	testing.TB
	cleanups []func()
	ctx      context.Context
	cancel   context.CancelFunc
}

func (t *exampleT) Helper()                           {}
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *exampleT) Logf(format string, args ...any)   { fmt.Fprintf(os.Stderr, format+"\n", args...) }

func (t *exampleT) TempDir() string {
	dir, err := os.MkdirTemp("", "zkraft-example-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Context is cancelled when body returns, before the cleanups run, as
// testing.T's is.
func (t *exampleT) Context() context.Context {
	if t.ctx == nil {
		t.ctx, t.cancel = context.WithCancel(context.Background())
	}
	return t.ctx
}

// cleanup runs the cleanups, last registered first, as testing does.
func (t *exampleT) cleanup() {
	if t.cancel != nil {
		t.cancel()
	}
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
