package admin

import (
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/zkraft/zkraft/server"
)

// The AdminServer's bounds, so that no caller can make it hold more than a
// little memory or a connection for long (docs/connection-limits.md has
// each one with its zoo.cfg key):
//
//   - headers above RequestHeaderSize are answered 431, as Jetty answers;
//   - connections above MaxConnections, or MaxConnectionsPerIP from one
//     address, are closed as soon as they are accepted;
//   - headers must arrive within ReadHeaderTimeout; a request body gets
//     ReadTimeout, then must keep up minBodyRate;
//   - each write of a response must complete within WriteTimeout: a
//     caller that stops reading a snapshot or an event stream is cut, and
//     the snapshot it held is released.

// Defaults of the bounds.
const (
	DefaultRequestHeaderSize   = 8 << 10
	DefaultMaxConnections      = 512
	DefaultMaxConnectionsPerIP = 64
	DefaultReadHeaderTimeout   = 10 * time.Second
	DefaultReadTimeout         = 30 * time.Second
	DefaultWriteTimeout        = 30 * time.Second
	// minBodyRate is the least rate, bytes a second, a request body must
	// keep up once ReadTimeout has passed.
	minBodyRate = 64 << 10
)

// limitsWithDefaults fills the zero fields of l.
func limitsWithDefaults(l server.AdminLimits) server.AdminLimits {
	set := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	setD := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	set(&l.RequestHeaderSize, DefaultRequestHeaderSize)
	set(&l.MaxConnections, DefaultMaxConnections)
	set(&l.MaxConnectionsPerIP, DefaultMaxConnectionsPerIP)
	setD(&l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	setD(&l.ReadTimeout, DefaultReadTimeout)
	setD(&l.WriteTimeout, DefaultWriteTimeout)
	return l
}

// bounded answers 431, as Jetty does, a request whose request line and
// headers hold more than l.RequestHeaderSize bytes, before h sees it, and
// gives a request with a body l.ReadTimeout to send it (bodyReader moves
// the deadline on as bytes arrive). The deadline matters even when h
// refuses the request without reading its body: net/http then reads what
// is left before it answers, which a trickling caller would otherwise
// make last forever. Requests without a body get no read deadline: on
// them net/http's background read, which notices a client going away,
// would end a long event stream at the deadline.
func bounded(h http.Handler, l server.AdminLimits) http.Handler {
	max := l.RequestHeaderSize
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 {
			http.NewResponseController(w).SetReadDeadline(time.Now().Add(l.ReadTimeout))
		}
		n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4
		for k, vs := range r.Header {
			for _, v := range vs {
				n += len(k) + len(v) + 4
			}
		}
		if n > max {
			w.Header().Set("Connection", "close")
			http.Error(w, "request headers too large", http.StatusRequestHeaderFieldsTooLarge)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// connLimiter is a listener that closes connections above its bounds.
type connLimiter struct {
	net.Listener
	total, perIP int
	mu           sync.Mutex
	open         int
	byIP         map[string]int
}

func limitConns(ln net.Listener, l server.AdminLimits) *connLimiter {
	return &connLimiter{Listener: ln, total: l.MaxConnections, perIP: l.MaxConnectionsPerIP, byIP: map[string]int{}}
}

// Accept returns the next connection within the bounds; those above are
// closed here, unanswered.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := hostOf(c.RemoteAddr())
		if l.take(ip) {
			return &limitedConn{Conn: c, release: func() { l.give(ip) }}, nil
		}
		c.Close()
	}
}

func (l *connLimiter) take(ip string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.total || l.byIP[ip] >= l.perIP {
		return false
	}
	l.open++
	l.byIP[ip]++
	return true
}

func (l *connLimiter) give(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.byIP[ip]--; l.byIP[ip] <= 0 {
		delete(l.byIP, ip)
	}
}

// hostOf is the IP of a remote address.
func hostOf(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// limitedConn gives its slot back once, when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// bodyReader reads a request body within ReadTimeout, and past it at
// minBodyRate, by moving the connection's read deadline as bytes arrive.
type bodyReader struct {
	r     io.Reader
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	n     int64
}

func newBodyReader(w http.ResponseWriter, r *http.Request, grace time.Duration) *bodyReader {
	return &bodyReader{r: r.Body, rc: http.NewResponseController(w), start: time.Now(), grace: grace}
}

func (b *bodyReader) Read(p []byte) (int, error) {
	allowed := b.grace + time.Duration(b.n)*time.Second/minBodyRate
	b.rc.SetReadDeadline(b.start.Add(allowed)) // unsupported only on fake writers: then unbounded
	n, err := b.r.Read(p)
	b.n += int64(n)
	return n, err
}

// deadlineWriter writes a response, each write within timeout.
type deadlineWriter struct {
	w       io.Writer
	rc      *http.ResponseController
	timeout time.Duration
}

func newDeadlineWriter(w http.ResponseWriter, timeout time.Duration) *deadlineWriter {
	return &deadlineWriter{w: w, rc: http.NewResponseController(w), timeout: timeout}
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.rc.SetWriteDeadline(time.Now().Add(d.timeout))
	return d.w.Write(p)
}
