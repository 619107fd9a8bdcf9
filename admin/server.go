package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Server is a running AdminServer.
type Server struct {
	ln   net.Listener
	http *http.Server
	done chan struct{}
}

// ErrListen wraps the error of an AdminServer that cannot listen (most
// often: its port is in use).
var ErrListen = errors.New("admin: cannot listen")

// Start listens on opts.Addr and serves the AdminServer for v until Close.
func Start(v View, opts Options) (*Server, error) {
	opts = opts.withDefaults()
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("%w on %s: %w", ErrListen, opts.Addr, err)
	}
	ln = secureListener(limitConns(ln, opts.Limits), opts)
	s := &Server{
		ln: ln,
		http: &http.Server{
			Handler:           bounded(withSTS(newHandler(v, opts)), opts.Limits),
			IdleTimeout:       opts.IdleTimeout,
			ReadHeaderTimeout: opts.Limits.ReadHeaderTimeout,
			// net/http's own bound is rough (it allows 4 KiB more, and
			// less on a reused connection); bounded (limits.go) is exact.
			MaxHeaderBytes: opts.Limits.RequestHeaderSize,
			// Failed TLS handshakes (scanners, untrusted clients) and the
			// like, at debug level: Jetty logs them there too.
			ErrorLog: slog.NewLogLogger(opts.Logger.Handler(), slog.LevelDebug),
		},
		done: make(chan struct{}),
	}
	if c, ok := opts.Console.(interface{ CloseStreams() }); ok {
		s.http.RegisterOnShutdown(c.CloseStreams)
	}
	go func() {
		defer close(s.done)
		if err := s.http.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			opts.Logger.Error("AdminServer stopped", "err", err)
		}
	}()
	opts.Logger.Info("AdminServer started", "addr", s.Addr(), "commandURL", opts.CommandURL, "scheme", opts.scheme())
	return s, nil
}

// Addr returns the address the AdminServer listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the AdminServer: it lets requests in progress finish for a
// second, then closes their connections, and waits for the server to end.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.http.Close()
	}
	<-s.done
	return err
}
