package admin

import (
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/zkraft/zkraft/server"
)

// Options configure an AdminServer.
type Options struct {
	// Addr is the host:port to listen on ("127.0.0.1:0" in tests).
	Addr string
	// CommandURL is the commands' root path (default "/commands").
	CommandURL string
	// IdleTimeout closes idle keep-alive connections (default 30 s).
	IdleTimeout time.Duration
	// RateLimit is the least time between two snapshots, and between two
	// restores; 0 means no limit.
	RateLimit time.Duration
	// SnapshotDisabled and RestoreDisabled turn those commands off (503).
	SnapshotDisabled, RestoreDisabled bool
	// InitialConfig is the zoo.cfg text a standalone server started from,
	// for initial_configuration ("" gives null).
	InitialConfig string
	// Backups serves snapshot and restore; nil answers them with 503.
	Backups Backups
	// Logger receives the AdminServer's lines (default: discarded).
	Logger *slog.Logger
	// TLS, when set, makes the AdminServer speak HTTPS (see TLSFrom);
	// with PortUnification it speaks plain HTTP on the same port too.
	TLS             *tls.Config
	PortUnification bool
	// Console serves every path the AdminServer itself does not (the
	// commands, /ready and /live): the web console at "/" (package
	// console; cmd/zkserver sets it unless admin.console.enabled=false).
	// nil answers those paths 404. When it has a CloseStreams method,
	// Close calls it first, so that its long-lived streams end.
	Console http.Handler
	// Limits bounds headers, connections and slow callers (limits.go);
	// zero fields take the defaults there.
	Limits server.AdminLimits
}

// OptionsFrom returns the Options of a zoo.cfg's admin.* keys (Backups,
// InitialConfig and Logger are left to the caller).
func OptionsFrom(c server.Config) Options {
	return Options{
		Addr:             net.JoinHostPort(c.AdminServerAddress, strconv.Itoa(c.AdminServerPort)),
		CommandURL:       c.AdminCommandURL,
		IdleTimeout:      c.AdminIdleTimeout(),
		RateLimit:        c.AdminRateLimit(),
		SnapshotDisabled: c.Admin.SnapshotDisabled,
		RestoreDisabled:  c.Admin.RestoreDisabled,
		PortUnification:  c.Admin.PortUnification && !c.Admin.ForceHTTPS,
		Limits:           c.Admin.Limits,
	}
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.CommandURL == "" {
		o.CommandURL = server.DefaultAdminCommandURL
	}
	// "/commands/" is "/commands"; "/" puts the commands at the root.
	o.CommandURL = strings.TrimRight(o.CommandURL, "/")
	if o.CommandURL != "" && o.CommandURL[0] != '/' {
		o.CommandURL = "/" + o.CommandURL
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = server.DefaultAdminIdleTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Limits = limitsWithDefaults(o.Limits)
	return o
}

// scheme names what the AdminServer speaks, for its start line.
func (o Options) scheme() string {
	switch {
	case o.TLS == nil:
		return "http"
	case o.PortUnification:
		return "https+http"
	}
	return "https"
}
