package acceptretry

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testlog"
)

// acceptErr is an accept error as the net package returns it.
func acceptErr(errno syscall.Errno) error {
	return &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)}
}

// fakeListener returns its script (errors and connections) in order,
// then, with forever set, that error on every call, else blocks until
// closed; once closed it returns what a closed TCP listener returns.
type fakeListener struct {
	mu      sync.Mutex
	script  []any
	forever error
	calls   int
	closed  chan struct{}
	once    sync.Once
}

func newFake(script ...any) *fakeListener {
	return &fakeListener{script: script, closed: make(chan struct{})}
}

func (f *fakeListener) Accept() (net.Conn, error) {
	select {
	case <-f.closed:
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: net.ErrClosed}
	default:
	}
	f.mu.Lock()
	f.calls++
	if len(f.script) > 0 {
		next := f.script[0]
		f.script = f.script[1:]
		f.mu.Unlock()
		if c, ok := next.(net.Conn); ok {
			return c, nil
		}
		return nil, next.(error)
	}
	forever := f.forever
	f.mu.Unlock()
	if forever != nil {
		return nil, forever
	}
	<-f.closed
	return nil, &net.OpError{Op: "accept", Net: "tcp", Err: net.ErrClosed}
}

func (f *fakeListener) Close() error {
	f.once.Do(func() { close(f.closed) })
	return nil
}

func (f *fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2181} }

func (f *fakeListener) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// wrapped wraps ln with a logger writing into the returned buffer, and
// records the waits instead of sleeping them.
func wrapped(ln net.Listener) (*Listener, *testlog.Buffer, *[]time.Duration) {
	var buf testlog.Buffer
	l := Wrap(ln, slog.New(slog.NewTextHandler(&buf, nil)), "client port")
	var waits []time.Duration
	l.wait = func(d time.Duration) bool { waits = append(waits, d); return true }
	l.quiet = 0 // an episode ends at the first accept that works
	return l, &buf, &waits
}

func pipeConn(t *testing.T) net.Conn {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a
}

// TestAcceptWaitsOutEMFILE: twelve EMFILE then a connection: Accept
// returns the connection, waited before every retry (5 ms doubling, at
// most 1 s: no busy loop), and logged one WARN and one INFO for the
// episode.
func TestAcceptWaitsOutEMFILE(t *testing.T) {
	conn := pipeConn(t)
	var script []any
	for range 12 {
		script = append(script, acceptErr(syscall.EMFILE))
	}
	fake := newFake(append(script, conn)...)
	l, logs, waits := wrapped(fake)
	defer l.Close()

	c, err := l.Accept()
	require.NoError(t, err)
	require.Same(t, conn, c)
	require.Equal(t, 13, fake.Calls())
	ms := time.Millisecond
	require.Equal(t, []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms,
		time.Second, time.Second, time.Second, time.Second}, *waits)
	require.Equal(t, 1, logs.Count("level=WARN"), logs.String())
	require.Len(t, logs.Lines(`level=WARN msg="accepting connections fails" listener="client port" addr=127.0.0.1:2181`), 1, logs.String())
	require.Contains(t, logs.String(), "too many open files")
	require.Contains(t, logs.String(), "ulimit -n")
	require.Len(t, logs.Lines(`level=INFO msg="accepting connections works again" listener="client port"`), 1, logs.String())
	require.Contains(t, logs.String(), "failed_accepts=12")
	require.Equal(t, 0, logs.Count("level=ERROR"))
}

// TestEachEpisodeLogsOnce: two episodes of failures, each ended by a
// connection, log one WARN and one INFO each, and the second waits from
// 5 ms again.
func TestEachEpisodeLogsOnce(t *testing.T) {
	c1, c2 := pipeConn(t), pipeConn(t)
	fake := newFake(acceptErr(syscall.EMFILE), acceptErr(syscall.ENFILE), c1,
		acceptErr(syscall.ENOBUFS), acceptErr(syscall.ENOMEM), acceptErr(syscall.ECONNABORTED), c2)
	l, logs, waits := wrapped(fake)
	defer l.Close()
	for _, want := range []net.Conn{c1, c2} {
		c, err := l.Accept()
		require.NoError(t, err)
		require.Same(t, want, c)
	}
	ms := time.Millisecond
	require.Equal(t, []time.Duration{5 * ms, 10 * ms, 5 * ms, 10 * ms, 20 * ms}, *waits)
	require.Equal(t, 2, logs.Count("level=WARN"), logs.String())
	require.Equal(t, 2, logs.Count("accepting connections works again"), logs.String())
	require.Contains(t, logs.String(), "failed_accepts=2")
	require.Contains(t, logs.String(), "failed_accepts=3")
}

// TestFlappingIsOneEpisode: accepts that work and fail in turn (a
// process at its descriptor limit) make one episode, which ends once
// accepts have worked for the quiet period: one WARN, one INFO.
func TestFlappingIsOneEpisode(t *testing.T) {
	c1, c2, c3 := pipeConn(t), pipeConn(t), pipeConn(t)
	fake := newFake(acceptErr(syscall.EMFILE), c1, acceptErr(syscall.EMFILE), acceptErr(syscall.EMFILE), c2,
		acceptErr(syscall.EMFILE), c3)
	l, logs, _ := wrapped(fake)
	defer l.Close()
	l.quiet = 2 * time.Second // far longer than the flaps below take
	for _, want := range []net.Conn{c1, c2, c3} {
		c, err := l.Accept()
		require.NoError(t, err)
		require.Same(t, want, c)
	}
	require.Equal(t, 1, logs.Count("level=WARN"), logs.String())
	require.Equal(t, 0, logs.Count(`msg="accepting connections works again"`), "the episode ends after the quiet period: %s", logs.String())
	require.Eventually(t, func() bool { return logs.Count(`msg="accepting connections works again"`) == 1 },
		30*time.Second, 5*time.Millisecond)
	require.Contains(t, logs.String(), "failed_accepts=4")
	require.Equal(t, 1, logs.Count("level=WARN"), logs.String())
}

// TestCloseCancelsTheEnd: a listener closed during the quiet period logs
// no end of the episode.
func TestCloseCancelsTheEnd(t *testing.T) {
	conn := pipeConn(t)
	l, logs, _ := wrapped(newFake(acceptErr(syscall.EMFILE), conn))
	l.quiet = time.Hour
	_, err := l.Accept()
	require.NoError(t, err)
	require.NoError(t, l.Close())
	l.mu.Lock()
	require.Nil(t, l.ending)
	l.mu.Unlock()
	require.Equal(t, 0, logs.Count(`msg="accepting connections works again"`), logs.String())
}

// TestUnexpectedErrorIsRetriedToo: an error that is not known to be
// temporary is retried as well (a loop that ends leaves the port dead
// until a restart), and logged once at ERROR.
func TestUnexpectedErrorIsRetriedToo(t *testing.T) {
	conn := pipeConn(t)
	odd := errors.New("something odd")
	fake := newFake(odd, odd, odd, conn)
	l, logs, waits := wrapped(fake)
	defer l.Close()
	c, err := l.Accept()
	require.NoError(t, err)
	require.Same(t, conn, c)
	require.Len(t, *waits, 3)
	require.Equal(t, 1, logs.Count("level=ERROR"), logs.String())
	require.Equal(t, 0, logs.Count("level=WARN"), logs.String())
}

// TestClosedListenerEndsAccept: a closed listener's error is returned at
// once, without a wait or a log line.
func TestClosedListenerEndsAccept(t *testing.T) {
	fake := newFake()
	l, logs, waits := wrapped(fake)
	require.NoError(t, l.Close())
	_, err := l.Accept()
	require.ErrorIs(t, err, net.ErrClosed)
	require.Empty(t, *waits)
	require.Empty(t, logs.String())
}

// TestCloseEndsTheWait: Close during a failure episode ends Accept's wait
// (with the real timer), and Accept returns net.ErrClosed.
func TestCloseEndsTheWait(t *testing.T) {
	fake := newFake()
	fake.forever = acceptErr(syscall.EMFILE)
	var logs testlog.Buffer
	l := Wrap(fake, slog.New(slog.NewTextHandler(&logs, nil)), "forwarding port")
	done := make(chan error, 1)
	go func() { _, err := l.Accept(); done <- err }()
	// Let the waits reach 1 s: 5+10+...+640 ms is about 1.3 s.
	require.Eventually(t, func() bool { return fake.Calls() >= 9 }, 30*time.Second, time.Millisecond)
	start := time.Now()
	require.NoError(t, l.Close())
	select {
	case err := <-done:
		require.ErrorIs(t, err, net.ErrClosed)
	case <-time.After(30 * time.Second):
		t.Fatal("Accept did not return after Close")
	}
	require.Less(t, time.Since(start), MaxDelay/2+5*time.Second, "Close ended the wait") // generous: loaded machine
	require.Equal(t, 1, logs.Count("level=WARN"), logs.String())
}

// TestNoBusyLoop: with the real timer, three failures take at least the
// 5+10+20 ms of waits before the connection is returned.
func TestNoBusyLoop(t *testing.T) {
	conn := pipeConn(t)
	fake := newFake(acceptErr(syscall.EMFILE), acceptErr(syscall.EMFILE), acceptErr(syscall.EMFILE), conn)
	l := Wrap(fake, nil, "client port")
	defer l.Close()
	start := time.Now()
	c, err := l.Accept()
	require.NoError(t, err)
	require.Same(t, conn, c)
	require.GreaterOrEqual(t, time.Since(start), 35*time.Millisecond)
	require.Equal(t, 4, fake.Calls())
}

func TestTemporary(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED} {
		require.True(t, Temporary(acceptErr(errno)), "%v", errno)
		require.True(t, Temporary(fmt.Errorf("wrapped: %w", acceptErr(errno))), "%v", errno)
	}
	require.True(t, Temporary(timeoutErr{}))
	require.False(t, Temporary(&net.OpError{Op: "accept", Net: "tcp", Err: net.ErrClosed}))
	require.False(t, Temporary(errors.New("something odd")))
	require.True(t, Closed(&net.OpError{Op: "accept", Net: "tcp", Err: net.ErrClosed}))
	require.False(t, Closed(acceptErr(syscall.EMFILE)))
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return false }

// failingFirst fails its first n accepts with err, then accepts from the
// real listener it wraps.
type failingFirst struct {
	net.Listener
	mu  sync.Mutex
	n   int
	err error
}

func (f *failingFirst) Accept() (net.Conn, error) {
	f.mu.Lock()
	if f.n > 0 {
		f.n--
		f.mu.Unlock()
		return nil, f.err
	}
	f.mu.Unlock()
	return f.Listener.Accept()
}

// TestHTTPServeSurvivesENOBUFS: net/http's Serve stops on an accept error
// that does not say it is temporary (ENOBUFS does not); behind Wrap it
// never sees one and serves the request that was waiting.
func TestHTTPServeSurvivesENOBUFS(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var logs testlog.Buffer
	l := Wrap(&failingFirst{Listener: ln, n: 3, err: acceptErr(syscall.ENOBUFS)},
		slog.New(slog.NewTextHandler(&logs, nil)), "metrics port")
	l.quiet = 10 * time.Millisecond
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }),
		ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(l) }()
	defer func() {
		require.NoError(t, hs.Close())
		require.ErrorIs(t, <-served, http.ErrServerClosed)
	}()
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get("http://" + ln.Addr().String() + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "ok", string(body))
	require.Eventually(t, func() bool { return logs.Count(`msg="accepting connections works again"`) == 1 },
		30*time.Second, 5*time.Millisecond)
	require.Equal(t, 1, logs.Count("level=WARN"), logs.String())
	require.Contains(t, logs.String(), "failed_accepts=3")
}
