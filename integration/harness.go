package integration

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/session"
)

// Server is an in-process zkraft server started by StartServer.
type Server struct {
	*server.Server
	// Clock is the server's clock when started WithFakeClock, else nil.
	Clock *session.FakeClock
	cfg   server.Config
}

type options struct {
	cfg       server.Config
	fakeClock bool
}

// Option configures StartServer.
type Option func(*options)

// WithConfig lets a test adjust the server configuration.
func WithConfig(fn func(c *server.Config)) Option { return func(o *options) { fn(&o.cfg) } }

// WithFakeClock runs the server on a session.FakeClock so a test can expire
// sessions and reap containers with Server.Clock.Advance, without waiting.
func WithFakeClock() Option { return func(o *options) { o.fakeClock = true } }

// StartServer starts an in-memory standalone server on 127.0.0.1 with a
// free port and stops it when the test ends.
func StartServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	o := options{cfg: server.DefaultConfig()}
	o.cfg.ClientPort = 0
	for _, fn := range opts {
		fn(&o)
	}
	var sopts []server.Option
	s := &Server{cfg: o.cfg}
	if o.fakeClock {
		s.Clock = session.NewFakeClock(time.Unix(1_700_000_000, 0))
		sopts = append(sopts, server.WithClock(s.Clock))
	}
	srv, err := server.New(o.cfg, sopts...)
	if err != nil {
		t.Fatalf("integration: new server: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("integration: start server: %v", err)
	}
	s.Server = srv
	t.Cleanup(func() { srv.Close() })
	return s
}

// Connect returns a go-zookeeper client connected to the server, with its
// session established, closed when the test ends.
// Options are go-zookeeper connection options such as zk.WithEventCallback.
func (s *Server) Connect(t testing.TB, opts ...func(*zk.Conn)) (*zk.Conn, <-chan zk.Event) {
	t.Helper()
	return connectTo(t, []string{s.Addr()}, opts...)
}

// connectTo connects a go-zookeeper client to addrs and waits for its session.
func connectTo(t testing.TB, addrs []string, opts ...func(*zk.Conn)) (*zk.Conn, <-chan zk.Event) {
	t.Helper()
	return connectDescribed(t, addrs, nil, opts...)
}

// connectDescribed is connectTo whose failure also prints describe(): the
// servers' state when no session came.
func connectDescribed(t testing.TB, addrs []string, describe func() string, opts ...func(*zk.Conn)) (*zk.Conn, <-chan zk.Event) {
	t.Helper()
	all := func(c *zk.Conn) {
		for _, o := range opts {
			o(c)
		}
	}
	c, events, err := zk.Connect(addrs, 10*time.Second, zk.WithLogger(quietLogger{}), all)
	if err != nil {
		t.Fatalf("integration: connect: %v", err)
	}
	t.Cleanup(c.Close)
	deadline := time.After(10 * time.Second)
	for c.State() != zk.StateHasSession {
		select {
		case <-events:
		case <-deadline:
			servers := ""
			if describe != nil {
				servers = "; " + describe()
			}
			t.Fatalf("integration: no session from %v after 10s (state %v)%s", addrs, c.State(), servers)
		}
	}
	return c, events
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...interface{}) {}
