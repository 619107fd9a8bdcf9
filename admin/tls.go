package admin

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/zkraft/zkraft/internal/acceptretry"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/tlsconf"
)

// HTTPS on the AdminServer follows ZooKeeper's JettyAdminServer (3.7.1+):
// admin.forceHttps serves HTTPS only, admin.portUnification serves HTTPS
// and plain HTTP on one port, and both take the server's key and the
// certificates it trusts from the ssl.quorum.* stores. admin.needClientAuth
// (3.9) makes clients present a certificate the trust store vouches for;
// without it none is asked for. Protocol versions and suites are Jetty's
// (tls_versions.go). HTTPS answers carry Jetty's
// Strict-Transport-Security header. The stores are re-read when their
// files change, as the client port's and the quorum's are.

// stsHeader is the Strict-Transport-Security value of HTTPS answers: a
// day, subdomains included, as ZooKeeper's SecureRequestCustomizer sets it.
const stsHeader = "max-age=86400; includeSubDomains"

// ErrAdminKeyStore is returned by TLSFrom when HTTPS is asked for without
// a key store to serve it with.
var ErrAdminKeyStore = errors.New("admin.forceHttps and admin.portUnification need ssl.quorum.keyStore.location")

// TLSFrom returns the AdminServer's TLS configuration for c: nil when
// neither admin.forceHttps nor admin.portUnification is set. close stops
// the stores' reloading (nil with a nil config).
func TLSFrom(c server.Config, log *slog.Logger) (cfg *tls.Config, close func(), err error) {
	if !c.AdminTLS() {
		return nil, nil, nil
	}
	props := c.Security.SSLQuorumProps
	tc, _, err := tlsconf.FromProps(adminTLSProps(props), "ssl.quorum.")
	if err != nil {
		return nil, nil, fmt.Errorf("admin: HTTPS: %w", err)
	}
	if !hasQuorumKey(props, "ciphersuites") {
		tc.CipherSuites = jettySuites()
	}
	if tc.KeyStore.Location == "" {
		return nil, nil, fmt.Errorf("admin: HTTPS: %w", ErrAdminKeyStore)
	}
	// Jetty asks for a client certificate only with needClientAuth, and
	// never checks a client's address against it.
	tc.ClientAuth = tls.NoClientCert
	if c.Admin.NeedClientAuth {
		tc.ClientAuth = tls.RequireAndVerifyClientCert
	}
	tc.ClientHostnameVerification = false
	src, err := tlsconf.Load(tc, log)
	if err != nil {
		return nil, nil, fmt.Errorf("admin: HTTPS: %w", err)
	}
	return src.ServerConfig(), src.Close, nil
}

// secureListener serves opts.TLS on ln: HTTPS only, or with
// PortUnification HTTPS and plain HTTP (nil TLS: ln as it is). In every
// case failed accepts (too many open files...) are waited out below
// net/http (acceptretry), which would stop serving on the first one that
// is not a temporary net.Error (ENOBUFS, ENOMEM), and retries the others
// with one debug line each.
func secureListener(ln net.Listener, opts Options) net.Listener {
	ln = acceptretry.Wrap(ln, opts.Logger, "AdminServer port")
	switch {
	case opts.TLS == nil:
		return ln
	case opts.PortUnification:
		return newUnifiedListener(ln, opts.TLS, opts.IdleTimeout)
	}
	return tls.NewListener(ln, opts.TLS)
}

// withSTS adds the Strict-Transport-Security header to HTTPS answers.
func withSTS(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil {
			w.Header().Set("Strict-Transport-Security", stsHeader)
		}
		h.ServeHTTP(w, r)
	})
}

// tlsRecordHandshake is the first byte of every TLS ClientHello (a
// handshake record); no HTTP request starts with it.
const tlsRecordHandshake = 0x16

// unifiedListener accepts HTTPS and plain HTTP on one port. Each
// connection's first byte decides, read on the connection's own goroutine
// (bounded by the idle timeout), so a client that sends nothing delays no
// one else; a TLS connection is handed to net/http as a *tls.Conn, which
// then handshakes and fills in Request.TLS.
type unifiedListener struct {
	net.Listener
	config *tls.Config
	wait   time.Duration
	conns  chan net.Conn
	done   chan struct{}
	once   sync.Once
	errMu  sync.Mutex
	err    error
}

func newUnifiedListener(ln net.Listener, config *tls.Config, wait time.Duration) *unifiedListener {
	u := &unifiedListener{Listener: ln, config: config, wait: wait, conns: make(chan net.Conn), done: make(chan struct{})}
	go u.acceptLoop()
	return u
}

// acceptLoop accepts until the listener closes. u.Listener waits out
// other accept errors (too many open files) itself (secureListener), and
// a connection that fails to be sorted is closed by sort: neither ends
// the loop, nor reaches net/http as an error.
func (u *unifiedListener) acceptLoop() {
	for {
		c, err := u.Listener.Accept()
		if err != nil {
			u.errMu.Lock()
			u.err = err
			u.errMu.Unlock()
			u.Close()
			return
		}
		go u.sort(c)
	}
}

// sort reads c's first byte and hands c on, as TLS or as it is.
func (u *unifiedListener) sort(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(u.wait))
	br := bufio.NewReaderSize(c, 512)
	first, err := br.Peek(1)
	c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return
	}
	var out net.Conn = &peekedConn{Conn: c, r: br}
	if first[0] == tlsRecordHandshake {
		out = tls.Server(out, u.config)
	}
	select {
	case u.conns <- out:
	case <-u.done:
		c.Close()
	}
}

// Accept returns the next sorted connection.
func (u *unifiedListener) Accept() (net.Conn, error) {
	select {
	case c := <-u.conns:
		return c, nil
	case <-u.done:
		u.errMu.Lock()
		defer u.errMu.Unlock()
		if u.err != nil {
			return nil, u.err
		}
		return nil, net.ErrClosed
	}
}

// Close stops accepting; connections still being sorted are closed.
func (u *unifiedListener) Close() error {
	var err error
	u.once.Do(func() {
		close(u.done)
		err = u.Listener.Close()
	})
	return err
}

// peekedConn reads through the buffer that holds the peeked byte.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (p *peekedConn) Read(b []byte) (int, error) { return p.r.Read(b) }
