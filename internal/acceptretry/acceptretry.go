package acceptretry

import (
	"errors"
	"log/slog"
	"net"
	"slices"
	"sync"
	"syscall"
	"time"
)

// The wait between failed accepts: FirstDelay after the first, doubling
// up to MaxDelay (net/http's Serve waits the same).
const (
	FirstDelay = 5 * time.Millisecond
	MaxDelay   = time.Second
)

// Quiet is how long accepts must work, without a failure, for an episode
// of failures to end. A process at its descriptor limit flaps: an accept
// works whenever a connection closes and the next fails; each flap
// starting a new episode would log a WARN and an INFO per closed
// connection.
const Quiet = 5 * time.Second

// temporaryErrnos are the accept errors expected to pass by themselves:
// descriptors or kernel memory running out, and, as accept(2) on Linux
// reports them, network errors pending on the connection being accepted.
var temporaryErrnos = []syscall.Errno{
	syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
	syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN,
	syscall.ETIMEDOUT, syscall.EPROTO, syscall.EPERM, syscall.ENETDOWN,
	syscall.ENETUNREACH, syscall.EHOSTDOWN, syscall.EHOSTUNREACH,
	syscall.ENOPROTOOPT, syscall.EOPNOTSUPP,
}

// Temporary reports whether err is an accept error that is expected to
// pass by itself: one of the errno values above (EMFILE, ENFILE,
// ENOBUFS, ENOMEM, ECONNABORTED...), a net.Error that is a timeout, or an
// error that says it is temporary.
func Temporary(err error) bool {
	var errno syscall.Errno
	if errors.As(err, &errno) && (slices.Contains(temporaryErrnos, errno) || errno.Temporary()) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// Closed reports whether err says the listener was closed.
func Closed(err error) bool { return errors.Is(err, net.ErrClosed) }

// Listener is a net.Listener whose Accept retries failed accepts until
// the listener is closed.
type Listener struct {
	net.Listener
	log  *slog.Logger
	what string
	done chan struct{} // closed by Close
	once sync.Once
	// wait waits d, or until done is closed (false then); tests replace it.
	wait func(d time.Duration) bool
	// quiet is Quiet; tests shorten it.
	quiet time.Duration

	mu       sync.Mutex // guards the episode below
	failing  bool       // an episode of failed accepts is running
	since    time.Time  // its first failure
	last     time.Time  // its last failure
	failures int        // failed accepts in it
	lastErr  error
	// ending runs from the first accept that works after a failure; it
	// ends the episode unless a failure (or Close) comes first.
	ending *time.Timer
	gen    int // tells a stale ending from the current one
}

// Wrap returns ln with an Accept that waits out failures. what names the
// listener in the log lines ("client port"); log nil discards them.
func Wrap(ln net.Listener, log *slog.Logger, what string) *Listener {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	l := &Listener{Listener: ln, log: log, what: what, done: make(chan struct{}), quiet: Quiet}
	l.wait = l.sleep
	return l
}

func (l *Listener) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-l.done:
		return false
	}
}

// Accept returns the next connection. A failed accept is retried after a
// wait (FirstDelay, doubling up to MaxDelay) whatever the error, except
// one that says the listener is closed: Accept returns an error only
// then, or once Close was called.
func (l *Listener) Accept() (net.Conn, error) {
	var delay time.Duration
	for {
		c, err := l.Listener.Accept()
		if err == nil {
			l.accepted()
			return c, nil
		}
		if Closed(err) {
			return nil, err
		}
		select {
		case <-l.done:
			return nil, net.ErrClosed
		default:
		}
		delay = next(delay)
		l.failed(err, delay)
		if !l.wait(delay) {
			return nil, net.ErrClosed
		}
	}
}

// next is the wait after one more failure, d being the last one.
func next(d time.Duration) time.Duration {
	if d == 0 {
		return FirstDelay
	}
	return min(2*d, MaxDelay)
}

// Close closes the listener and ends a wait between retries.
func (l *Listener) Close() error {
	l.once.Do(func() {
		close(l.done)
		l.mu.Lock()
		l.stopEnding()
		l.mu.Unlock()
	})
	return l.Listener.Close()
}

// failed notes a failed accept; the first of an episode is logged.
func (l *Listener) failed(err error, delay time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopEnding() // the episode goes on
	l.failures++
	l.lastErr, l.last = err, time.Now()
	if l.failing {
		return
	}
	l.failing, l.since, l.failures = true, l.last, 1
	attrs := []any{"listener", l.what, "addr", l.Addr().String(), "err", err, "retry_in", delay,
		"note", "logged once per episode; retried with backoff up to " + MaxDelay.String() + "; the end is logged once accepts have worked for " + Quiet.String()}
	if hint := hintFor(err); hint != "" {
		attrs = append(attrs, "hint", hint)
	}
	if Temporary(err) {
		l.log.Warn("accepting connections fails", attrs...)
	} else {
		l.log.Error("accepting connections fails with an unexpected error", attrs...)
	}
}

// accepted notes an accept that worked: if an episode is running, it
// ends once accepts have worked for l.quiet.
func (l *Listener) accepted() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.failing || l.ending != nil {
		return
	}
	if l.quiet <= 0 {
		l.endLocked()
		return
	}
	l.gen++
	gen := l.gen
	l.ending = time.AfterFunc(l.quiet, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.gen == gen && l.ending != nil {
			l.endLocked()
		}
	})
}

// stopEnding cancels the end of the episode (l.mu held).
func (l *Listener) stopEnding() {
	if l.ending != nil {
		l.ending.Stop()
		l.ending = nil
	}
	l.gen++
}

// endLocked logs the end of the episode and forgets it (l.mu held).
func (l *Listener) endLocked() {
	l.log.Info("accepting connections works again", "listener", l.what, "addr", l.Addr().String(),
		"failed_accepts", l.failures, "failing_for", l.last.Sub(l.since).Round(time.Millisecond), "last_err", l.lastErr)
	l.failing, l.failures, l.lastErr, l.ending = false, 0, nil, nil
}

func hintFor(err error) string {
	switch {
	case errors.Is(err, syscall.EMFILE):
		return "the process has as many files and connections open as its limit allows: raise it (ulimit -n, systemd LimitNOFILE) or find what holds them"
	case errors.Is(err, syscall.ENFILE):
		return "the system has as many files open as it allows (fs.file-max)"
	}
	return ""
}
