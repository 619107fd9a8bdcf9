package recipes_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/zkraft/zkraft/integration"
)

// TestMain checks that no recipe leaves a goroutine behind once its test
// has released it and closed its clients.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testCtx returns a context that ends with the test, bounded so that a
// broken recipe fails instead of hanging.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// clients connects n go-zookeeper clients, each with its own session.
func clients(t testing.TB, srv *integration.Server, n int) []*zk.Conn {
	out := make([]*zk.Conn, n)
	for i := range out {
		out[i], _ = srv.Connect(t)
	}
	return out
}

// eventually waits for cond, failing the test after 10s.
func eventually(t testing.TB, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond) // poll interval of the condition
	}
}
