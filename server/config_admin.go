package server

import (
	"fmt"
	"slices"
	"time"
)

// AdminOptions are the AdminServer settings beyond the four Admin* fields
// of Config. Their zero values are ZooKeeper's defaults, so a Config built
// in code needs none of them.
type AdminOptions struct {
	// IdleTimeout closes an idle AdminServer connection
	// (admin.idleTimeout, ms; 0 means the default, 30 s).
	IdleTimeout time.Duration
	// RateLimit is the least time between two snapshot, and between two
	// restore, commands (admin.rateLimiterIntervalInMS; 0 means the
	// default, 5 minutes; NoAdminRateLimit turns the limit off).
	RateLimit time.Duration
	// SnapshotDisabled and RestoreDisabled turn the snapshot and restore
	// commands off (admin.snapshot.enabled=false,
	// admin.restore.enabled=false); they answer 503 then.
	SnapshotDisabled, RestoreDisabled bool
	// ConsoleDisabled turns off the web console the AdminServer serves at
	// its root (admin.console.enabled=false; zkraft's own key: package
	// console, docs/console.md).
	ConsoleDisabled bool
	// ForceHTTPS serves HTTPS only (admin.forceHttps); PortUnification
	// serves HTTPS and plain HTTP on the one port (admin.portUnification).
	// Either takes its key and trust stores from the ssl.quorum.* keys,
	// as ZooKeeper's JettyAdminServer does; ForceHTTPS wins over
	// PortUnification.
	ForceHTTPS, PortUnification bool
	// NeedClientAuth makes HTTPS clients present a certificate the quorum
	// trust store vouches for (admin.needClientAuth); without it none is
	// asked for. The x509 scheme of the Authorization header needs it.
	NeedClientAuth bool
	// Limits bounds what one caller can make the AdminServer hold
	// (zkraft's own keys; docs/connection-limits.md).
	Limits AdminLimits
}

// AdminLimits are the AdminServer's bounds on headers, connections and
// slow callers; a zero field means package admin's default.
type AdminLimits struct {
	// RequestHeaderSize bounds a request's headers, bytes; more is
	// answered 431 (admin.requestHeaderSize; default 8192, as Jetty's).
	RequestHeaderSize int
	// MaxConnections and MaxConnectionsPerIP bound the open connections
	// in all and from one address; more are closed at once
	// (admin.maxConnections, admin.maxConnectionsPerIP).
	MaxConnections, MaxConnectionsPerIP int
	// ReadHeaderTimeout bounds reading a request's headers
	// (admin.readHeaderTimeout, ms).
	ReadHeaderTimeout time.Duration
	// ReadTimeout is how long a request body may take before it must
	// keep up a minimum rate (admin.readTimeout, ms).
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of a response: a caller that stops
	// reading a snapshot or an event stream is cut (admin.writeTimeout, ms).
	WriteTimeout time.Duration
}

// AdminTLS reports whether the AdminServer speaks HTTPS.
func (c Config) AdminTLS() bool { return c.Admin.ForceHTTPS || c.Admin.PortUnification }

// AdminServer defaults (ZooKeeper's JettyAdminServer and Commands).
const (
	// DefaultAdminIdleTimeout is admin.idleTimeout's default.
	DefaultAdminIdleTimeout = 30 * time.Second
	// DefaultAdminRateLimit is admin.rateLimiterIntervalInMS's default.
	DefaultAdminRateLimit = 300000 * time.Millisecond
	// NoAdminRateLimit is the RateLimit of admin.rateLimiterIntervalInMS=0:
	// every snapshot and restore is allowed.
	NoAdminRateLimit time.Duration = -1
)

// AdminIdleTimeout returns the effective admin.idleTimeout.
func (c Config) AdminIdleTimeout() time.Duration {
	if c.Admin.IdleTimeout > 0 {
		return c.Admin.IdleTimeout
	}
	return DefaultAdminIdleTimeout
}

// AdminRateLimit returns the effective admin.rateLimiterIntervalInMS: 0
// when there is no limit.
func (c Config) AdminRateLimit() time.Duration {
	switch {
	case c.Admin.RateLimit == NoAdminRateLimit:
		return 0
	case c.Admin.RateLimit > 0:
		return c.Admin.RateLimit
	}
	return DefaultAdminRateLimit
}

// adminKeyHandlers parse the AdminServer keys that ZooKeeper reads as
// zookeeper.admin.* system properties (the first four are in keyHandlers;
// admin.serverPort is replaced here so that 0, a free port, is allowed
// as Jetty allows it).
var adminKeyHandlers = map[string]func(c *Config, v string) error{
	"admin.serverPort": func(c *Config, v string) error {
		n, err := parseInt(v)
		if err == nil && (n < 0 || n > 65535) {
			err = fmt.Errorf("%q is not a valid port (0-65535)", v)
		}
		c.AdminServerPort = n
		return err
	},
	"admin.idleTimeout": setDecoded(func(c *Config, n int64) { c.Admin.IdleTimeout = ms(n) }, 1, 1<<31-1),
	"admin.rateLimiterIntervalInMS": setDecoded(func(c *Config, n int64) {
		c.Admin.RateLimit = ms(n)
		if n == 0 {
			c.Admin.RateLimit = NoAdminRateLimit
		}
	}, 0, 1<<31-1),
	"admin.snapshot.enabled":    setDisabled(func(c *Config) *bool { return &c.Admin.SnapshotDisabled }),
	"admin.restore.enabled":     setDisabled(func(c *Config) *bool { return &c.Admin.RestoreDisabled }),
	"admin.console.enabled":     setDisabled(func(c *Config) *bool { return &c.Admin.ConsoleDisabled }),
	"admin.forceHttps":          setBool(func(c *Config) *bool { return &c.Admin.ForceHTTPS }),
	"admin.portUnification":     setBool(func(c *Config) *bool { return &c.Admin.PortUnification }),
	"admin.needClientAuth":      setBool(func(c *Config) *bool { return &c.Admin.NeedClientAuth }),
	"admin.requestHeaderSize":   setDecoded(func(c *Config, n int64) { c.Admin.Limits.RequestHeaderSize = int(n) }, 1024, 1<<20),
	"admin.maxConnections":      setDecoded(func(c *Config, n int64) { c.Admin.Limits.MaxConnections = int(n) }, 1, 1<<20),
	"admin.maxConnectionsPerIP": setDecoded(func(c *Config, n int64) { c.Admin.Limits.MaxConnectionsPerIP = int(n) }, 1, 1<<20),
	"admin.readHeaderTimeout":   setDecoded(func(c *Config, n int64) { c.Admin.Limits.ReadHeaderTimeout = ms(n) }, 1, 1<<31-1),
	"admin.readTimeout":         setDecoded(func(c *Config, n int64) { c.Admin.Limits.ReadTimeout = ms(n) }, 1, 1<<31-1),
	"admin.writeTimeout":        setDecoded(func(c *Config, n int64) { c.Admin.Limits.WriteTimeout = ms(n) }, 1, 1<<31-1),
}

// setDisabled returns a handler storing the negation of an "enabled"
// boolean in a "disabled" field.
func setDisabled(field func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, err := parseBool(v)
		*field(c) = !b
		return err
	}
}

func init() {
	for k, h := range adminKeyHandlers {
		if _, known := keyHandlers[k]; !known {
			knownKeys = append(knownKeys, k)
		}
		keyHandlers[k] = h
		sysPropKeys[k] = true
	}
	slices.Sort(knownKeys)
}
