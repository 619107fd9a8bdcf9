package server

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is a zkserver configuration. ParseConfig fills it from a zoo.cfg
// with ZooKeeper's defaults; DefaultConfig is the no-argument in-memory
// server.
type Config struct {
	// TickTime is the base time unit: session-expiry granularity and the
	// unit of the session-timeout defaults (zoo.cfg tickTime, ms; 3000 when
	// absent, as ZooKeeper).
	TickTime time.Duration
	// ClientPort is the client listener port (clientPort, or the ;port of
	// this server's server.N line). 0 picks a free port (tests only).
	ClientPort int
	// ClientPortAddress is the client listener address; "" means all
	// interfaces.
	ClientPortAddress string
	// DataDir holds snapshots and myid; "" keeps all state in memory.
	DataDir string
	// DataLogDir holds the log; it defaults to DataDir, as in ZooKeeper.
	DataLogDir string
	// MaxClientCnxns limits connections per client IP; 0 means unlimited
	// (default 60).
	MaxClientCnxns int
	// MaxCnxns limits the server's client connections in all (maxCnxns,
	// ZooKeeper 3.6+); 0 means unlimited, the default.
	MaxCnxns int
	// MinSessionTimeout is the lower negotiation bound; 0 means 2*TickTime.
	MinSessionTimeout time.Duration
	// MaxSessionTimeout is the upper negotiation bound; 0 means 20*TickTime.
	MaxSessionTimeout time.Duration
	// FourLetterWhitelist lists enabled four-letter words; "*" enables all.
	// srvr is always enabled (see FourLetterAllowed).
	FourLetterWhitelist []string
	// ExtendedTypesEnabled enables TTL nodes (zookeeper.extendedTypesEnabled).
	ExtendedTypesEnabled bool
	// SuperDigest is the super user's "super:<base64 sha1>" digest
	// (zookeeper.DigestAuthenticationProvider.superDigest); "" disables it.
	SuperDigest string
	// MaxBuffer is the largest accepted packet (jute.maxbuffer, default
	// 0xfffff).
	MaxBuffer int
	// AdminEnableServer enables the HTTP AdminServer (admin.enableServer).
	AdminEnableServer bool
	// AdminServerAddress is the AdminServer address (admin.serverAddress).
	AdminServerAddress string
	// AdminServerPort is the AdminServer port (admin.serverPort).
	AdminServerPort int
	// AdminCommandURL is the AdminServer command root (admin.commandURL).
	AdminCommandURL string
	// Admin holds the other AdminServer settings (config_admin.go).
	Admin AdminOptions
	// File is the zoo.cfg the configuration was read from, if any (for
	// messages that name it).
	File string
	// ServerID is read from DataDir/myid; 0 when there is none.
	ServerID int64
	// Servers holds the server.N lines, keyed by N, values as written:
	// the zoo.cfg's, or those of its dynamicConfigFile.
	Servers map[int64]string
	// DynamicConfigFile is the file holding the membership
	// (dynamicConfigFile, ZooKeeper 3.5+), read by the parser into Servers
	// and MembershipVersion (config_dynamic.go).
	DynamicConfigFile string
	// MembershipVersion is the version of that membership: the hex suffix
	// of the dynamic file's name (zoo.cfg.dynamic.100000000), 0 for server
	// lines in zoo.cfg. It is the version=, and curConfigId, of
	// /zookeeper/config until a reconfig.
	MembershipVersion int64
	// ReconfigEnabled allows the reconfig operation (reconfigEnabled).
	ReconfigEnabled bool
	// StandaloneEnabled lets a single configured server run standalone
	// (standaloneEnabled, default true).
	StandaloneEnabled bool
	// InitLimit is the follower initial-sync limit in ticks (initLimit).
	InitLimit int
	// SyncLimit is the follower sync limit in ticks (syncLimit).
	SyncLimit int
	// SnapCount is the number of log entries between snapshots
	// (zookeeper.snapCount, default 100000, at least 2).
	SnapCount int
	// SnapSizeLimit is zookeeper.snapSizeLimitInKb in bytes: a snapshot
	// is also taken once the log since the last one holds a random size in
	// (limit/2, limit]; -1 (the key at or below zero) turns the size limit
	// off. Unset (0), zkraft follows the last snapshot's size, at least
	// 64 MiB, where ZooKeeper's default is 4 GiB
	// (consensus.Config.SnapshotBytes).
	SnapSizeLimit int64
	// SnapRetainCount is how many snapshots are kept in dataDir
	// (autopurge.snapRetainCount, default and minimum 3).
	SnapRetainCount int
	// ForceSync makes every log append reach the disk before it is
	// acknowledged (forceSync, default yes). Only meaningful with DataDir.
	ForceSync bool
	// ReadOnlyMode enables read-only mode (readonlymode.enabled).
	ReadOnlyMode bool
	// LocalSessionsEnabled keeps each new session on the server it
	// connects to, with no consensus round (localSessionsEnabled, default
	// false; only on an ensemble member, as in ZooKeeper: localsession.go).
	LocalSessionsEnabled bool
	// LocalSessionsUpgradingEnabled turns a local session into a global
	// one on its first ephemeral create (localSessionsUpgradingEnabled,
	// default false, as ZooKeeper 3.8's QuorumPeerConfig); when false that
	// create fails with EPHEMERALONLOCALSESSION.
	LocalSessionsUpgradingEnabled bool
	// Metrics is the metricsProvider.* configuration: whether and where
	// cmd/zkserver serves Prometheus's /metrics (see config_metrics.go).
	Metrics MetricsProvider
	// Ignored lists, in file order, the keys that were accepted but have no
	// effect: recognised ZooKeeper keys zkraft does not implement, and
	// unknown keys. The caller should warn about them.
	Ignored []string
	// IgnoredKeys has the same keys with their file:line and why each was
	// ignored (see IgnoredKey.String for the warning to print).
	IgnoredKeys []IgnoredKey
	// ContainerCheckInterval is how often empty containers and expired TTL
	// nodes are reaped (znode.container.checkIntervalMs, default 60 s; a
	// zoo.cfg value must be positive, 0 in a Config built in code disables
	// reaping).
	ContainerCheckInterval time.Duration
	// SessionlessCnxnTimeout is how long a connection may take to complete
	// its handshake (send a whole ConnectRequest and get its session)
	// before it is closed (zookeeper.nio.sessionlessCnxnTimeout, ms,
	// default 10 s as ZooKeeper). Until then the connection counts against
	// MaxClientCnxns; without the bound, silent sockets would hold those
	// slots, and descriptors, for good. 0 in a Config built in code means
	// the default.
	SessionlessCnxnTimeout time.Duration
	// ClientOutputLimit bounds the bytes of replies and watch events one
	// connection may hold unsent because its client reads them more slowly
	// than it asks (zkraft.clientOutputLimit, default 16 MiB, never less
	// than 4 * MaxBuffer so that a large reply always fits). A connection
	// that would pass it is closed with a warning; its session survives.
	// 0 in a Config built in code means the default.
	ClientOutputLimit int
	// TotalClientOutputLimit bounds the same bytes summed over all
	// connections (zkraft.totalClientOutputLimit, default 256 MiB): a
	// connection whose backlog would take the sum past it is closed. 0 in
	// a Config built in code means the default.
	TotalClientOutputLimit int64
	// ContainerMaxNeverUsed is how long a never-used container survives
	// (znode.container.maxNeverUsedIntervalMs); 0 means it is kept until
	// it gets and loses a child.
	ContainerMaxNeverUsed time.Duration
	// Security holds the TLS and authentication settings.
	Security Security
	// Audit is the audit log's configuration (audit.enable, audit.file).
	Audit Audit
}

// ZooKeeper's defaults for keys absent from zoo.cfg.
const (
	// DefaultTickTime is ZooKeeperServer.DEFAULT_TICK_TIME.
	DefaultTickTime = 3000 * time.Millisecond
	// DefaultMaxClientCnxns is the per-IP connection limit.
	DefaultMaxClientCnxns = 60
	// DefaultMaxBuffer is jute.maxbuffer's default, 1 MiB - 1.
	DefaultMaxBuffer = 0xfffff
	// DefaultAdminPort is the AdminServer's port.
	DefaultAdminPort = 8080
	// DefaultAdminAddress is the AdminServer's listen address.
	DefaultAdminAddress = "0.0.0.0"
	// DefaultAdminCommandURL is the AdminServer's command root.
	DefaultAdminCommandURL = "/commands"
	// DefaultSnapCount is zookeeper.snapCount's default.
	DefaultSnapCount = 100000
	// DefaultSnapRetainCount is autopurge.snapRetainCount's default and minimum.
	DefaultSnapRetainCount = 3
	// DefaultContainerCheck is znode.container.checkIntervalMs's default.
	DefaultContainerCheck = 60 * time.Second
	// DefaultClientOutputLimit is ClientOutputLimit's default.
	DefaultClientOutputLimit = 16 << 20
	// DefaultTotalClientOutputLimit is TotalClientOutputLimit's default.
	DefaultTotalClientOutputLimit = 256 << 20
	// DefaultSessionlessCnxnTimeout is zookeeper.nio.sessionlessCnxnTimeout's
	// default.
	DefaultSessionlessCnxnTimeout = 10 * time.Second
)

// zooDefaults returns the configuration a zoo.cfg without keys yields
// (ZooKeeper 3.9: QuorumPeerConfig, ServerConfig and system properties).
func zooDefaults() Config {
	return Config{
		TickTime:               DefaultTickTime,
		MaxClientCnxns:         DefaultMaxClientCnxns,
		FourLetterWhitelist:    []string{"srvr"},
		MaxBuffer:              DefaultMaxBuffer,
		AdminEnableServer:      true,
		AdminServerAddress:     DefaultAdminAddress,
		AdminServerPort:        DefaultAdminPort,
		AdminCommandURL:        DefaultAdminCommandURL,
		Servers:                map[int64]string{},
		StandaloneEnabled:      true,
		SnapCount:              DefaultSnapCount,
		SnapRetainCount:        DefaultSnapRetainCount,
		ForceSync:              true,
		ContainerCheckInterval: DefaultContainerCheck,
		SessionlessCnxnTimeout: DefaultSessionlessCnxnTimeout,
		ClientOutputLimit:      DefaultClientOutputLimit,
		TotalClientOutputLimit: DefaultTotalClientOutputLimit,
		Metrics:                defaultMetricsProvider(),
	}
}

// DefaultConfig returns the no-argument configuration: an in-memory
// standalone server on 127.0.0.1:2181 with tickTime 2000 ms (the value of
// ZooKeeper's zoo_sample.cfg, so sessions negotiate 4-40 s). It differs from
// a parsed zoo.cfg in two ways, for convenience on a developer machine: all
// four-letter words are enabled ("*"; ZooKeeper's default is srvr only) and
// the AdminServer is off.
func DefaultConfig() Config {
	c := zooDefaults()
	c.TickTime = 2000 * time.Millisecond
	c.ClientPort = 2181
	c.ClientPortAddress = "127.0.0.1"
	c.FourLetterWhitelist = []string{"*"}
	c.AdminEnableServer = false
	return c
}

// MinSession returns the effective minimum session timeout.
func (c Config) MinSession() time.Duration {
	if c.MinSessionTimeout > 0 {
		return c.MinSessionTimeout
	}
	return 2 * c.TickTime
}

// MaxSession returns the effective maximum session timeout.
func (c Config) MaxSession() time.Duration {
	if c.MaxSessionTimeout > 0 {
		return c.MaxSessionTimeout
	}
	return 20 * c.TickTime
}

// sessionlessTimeout returns the effective SessionlessCnxnTimeout.
func (c Config) sessionlessTimeout() time.Duration {
	if c.SessionlessCnxnTimeout > 0 {
		return c.SessionlessCnxnTimeout
	}
	return DefaultSessionlessCnxnTimeout
}

// connOutputLimit returns the effective ClientOutputLimit.
func (c Config) connOutputLimit() int {
	limit := c.ClientOutputLimit
	if limit == 0 {
		limit = DefaultClientOutputLimit
	}
	return max(limit, 4*c.MaxBuffer)
}

// totalOutputLimit returns the effective TotalClientOutputLimit.
func (c Config) totalOutputLimit() int64 {
	if c.TotalClientOutputLimit > 0 {
		return c.TotalClientOutputLimit
	}
	return DefaultTotalClientOutputLimit
}

// FourLetterAllowed reports whether four-letter word cmd is enabled. As in
// ZooKeeper, srvr is always enabled (zkServer.sh status needs it) and isro
// is enabled in read-only mode, whatever the whitelist says.
func (c Config) FourLetterAllowed(cmd string) bool {
	if cmd == "srvr" || (cmd == "isro" && c.ReadOnlyMode) {
		return true
	}
	for _, w := range c.FourLetterWhitelist {
		if w == "*" || w == cmd {
			return true
		}
	}
	return false
}

// maxExtendedServerID is the largest server id usable with extended types
// (EphemeralType.MAX_EXTENDED_SERVER_ID).
const maxExtendedServerID = 254

// Validate checks the configuration's values and their consistency.
func (c Config) Validate() error {
	var errs []error
	check := func(bad bool, format string, args ...any) {
		if bad {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(c.TickTime <= 0, "tickTime %v must be positive", c.TickTime)
	check(c.ClientPort < 0 || c.ClientPort > 65535, "clientPort %d is not a valid port", c.ClientPort)
	check(c.MaxClientCnxns < 0, "maxClientCnxns %d must not be negative", c.MaxClientCnxns)
	check(c.MaxCnxns < 0, "maxCnxns %d must not be negative", c.MaxCnxns)
	check(c.MinSessionTimeout < 0, "minSessionTimeout %v must not be negative", c.MinSessionTimeout)
	check(c.MaxSessionTimeout < 0, "maxSessionTimeout %v must not be negative", c.MaxSessionTimeout)
	check(c.TickTime > 0 && c.MinSession() > c.MaxSession(),
		"minSessionTimeout %v is larger than maxSessionTimeout %v", c.MinSession(), c.MaxSession())
	check(c.MaxBuffer <= 0, "jute.maxbuffer %d must be positive", c.MaxBuffer)
	check(c.AdminServerPort < 0 || c.AdminServerPort > 65535, "admin.serverPort %d is not a valid port", c.AdminServerPort)
	check(c.SnapCount < 0, "snapCount %d must not be negative", c.SnapCount)
	check(c.ContainerCheckInterval < 0, "znode.container.checkIntervalMs %v must not be negative", c.ContainerCheckInterval)
	check(c.ContainerMaxNeverUsed < 0, "znode.container.maxNeverUsedIntervalMs %v must not be negative", c.ContainerMaxNeverUsed)
	check(c.SessionlessCnxnTimeout < 0, "nio.sessionlessCnxnTimeout %v must not be negative", c.SessionlessCnxnTimeout)
	check(c.ClientOutputLimit < 0, "zkraft.clientOutputLimit %d must not be negative", c.ClientOutputLimit)
	check(c.TotalClientOutputLimit < 0, "zkraft.totalClientOutputLimit %d must not be negative", c.TotalClientOutputLimit)
	check(c.ServerID < 0, "server id %d must not be negative", c.ServerID)
	check(c.ExtendedTypesEnabled && c.ServerID > maxExtendedServerID,
		"extendedTypesEnabled is true but server id %d is larger than %d", c.ServerID, maxExtendedServerID)
	return errors.Join(errs...)
}

// ParseConfigFile reads a zoo.cfg. Relative dataDir and dataLogDir paths
// stay relative to the working directory, as in ZooKeeper. Errors name the
// file and line.
func ParseConfigFile(path string) (Config, error) {
	return parseConfigFile(path, nil)
}

// ParseConfigFileWithProperties is ParseConfigFile for a server started
// with JVM system properties, the -D flags zkServer.sh passes from
// SERVER_JVMFLAGS: those zkraft knows are applied first and the file's
// keys override them, as ZooKeeper's QuorumPeerConfig sets the keys it
// does not parse itself as system properties over the JVM's. Properties
// zkraft does not know are left alone. An empty path means no zoo.cfg:
// the defaults of DefaultConfig with the properties applied.
func ParseConfigFileWithProperties(path string, props map[string]string) (Config, error) {
	if path == "" {
		p := &cfgParser{c: DefaultConfig(), name: jvmFlagsName, lines: map[string]int{}}
		if err := p.applyProperties(props); err != nil {
			return Config{}, err
		}
		if err := p.finishSecurity(); err != nil {
			return Config{}, err
		}
		return p.c, p.c.Validate()
	}
	return parseConfigFile(path, props)
}

// parseConfigFile reads the zoo.cfg at path over the system properties.
func parseConfigFile(path string, props map[string]string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, err
	}
	defer f.Close()
	cfg, err := parseConfigWith(f, path, "", props)
	cfg.File = path
	return cfg, err
}

// jvmFlagsName names the JVM flags in errors about them.
const jvmFlagsName = "SERVER_JVMFLAGS"

// applyProperties applies the system properties zkraft knows, in key
// order, and keeps them all for the JAAS file's ${name} expansion.
func (p *cfgParser) applyProperties(props map[string]string) error {
	keys := slices.Sorted(maps.Keys(props))
	for _, k := range keys {
		key := canonicalKey(k)
		if handled, err := p.applySecurity(securityKey(key), props[k]); handled {
			if err != nil {
				return fmt.Errorf("%s: -D%s: %w", jvmFlagsName, k, err)
			}
			continue
		}
		if h, ok := keyHandlers[key]; ok {
			if err := h(&p.c, props[k]); err != nil {
				return fmt.Errorf("%s: -D%s: %w", jvmFlagsName, k, err)
			}
		}
	}
	p.c.Security.SystemProperties = props
	return nil
}

// ParseConfig reads a zoo.cfg in java.util.Properties syntax (key=value,
// key:value or key value; # and ! comment lines; backslash continuations
// and escapes; surrounding spaces trimmed; the last duplicate wins).
// Relative dataDir and dataLogDir paths are resolved against baseDir unless
// it is "". DataDir/myid is read when present. Errors are prefixed
// "zoo.cfg:LINE: KEY:".
//
// Keys that ZooKeeper reads as zookeeper.X system properties are accepted
// both as X and as zookeeper.X. jute.maxbuffer, readonlymode.enabled and
// znode.container.* are also accepted, although ZooKeeper only takes them
// as JVM -D flags.
func ParseConfig(r io.Reader, baseDir string) (Config, error) {
	return parseConfig(r, "zoo.cfg", baseDir)
}

// parseConfig reads a configuration whose errors are reported against name.
func parseConfig(r io.Reader, name, baseDir string) (Config, error) {
	return parseConfigWith(r, name, baseDir, nil)
}

// parseConfigWith is parseConfig over JVM system properties (see
// ParseConfigFileWithProperties).
func parseConfigWith(r io.Reader, name, baseDir string, sys map[string]string) (Config, error) {
	props, err := readProperties(r)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", name, err)
	}
	p := &cfgParser{c: zooDefaults(), name: name, lines: map[string]int{}}
	if err := p.applyProperties(sys); err != nil {
		return Config{}, err
	}
	for _, pr := range props {
		if err := p.apply(pr); err != nil {
			return Config{}, err
		}
	}
	if err := p.finish(baseDir); err != nil {
		return Config{}, err
	}
	if err := p.c.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", name, err)
	}
	return p.c, nil
}

// cfgParser accumulates a Config from zoo.cfg properties.
type cfgParser struct {
	c     Config
	name  string
	lines map[string]int // canonical key -> line, for keys that were set
}

// errAt formats an error at the line of canonical key.
func (p *cfgParser) errAt(key string, err error) error {
	if line, ok := p.lines[key]; ok {
		return fmt.Errorf("%s:%d: %s: %w", p.name, line, key, err)
	}
	return fmt.Errorf("%s: %s: %w", p.name, key, err)
}

// apply handles one property.
func (p *cfgParser) apply(pr property) error {
	key := canonicalKey(pr.key)
	p.lines[key] = pr.line
	if set, ok := quorumAuthKeys[key]; ok {
		if err := set(&p.c.Security.QuorumSASL, pr.value); err != nil {
			return fmt.Errorf("%s:%d: %s: %w", p.name, pr.line, pr.key, err)
		}
		return nil
	}
	if handled, err := p.applySecurity(securityKey(key), pr.value); handled {
		if err != nil {
			return fmt.Errorf("%s:%d: %s: %w", p.name, pr.line, pr.key, err)
		}
		return nil
	}
	if handled, err := p.applyMetrics(key, pr.value); handled {
		if err != nil {
			return fmt.Errorf("%s:%d: %s: %w", p.name, pr.line, pr.key, err)
		}
		return nil
	}
	var err error
	switch h, ok := keyHandlers[key]; {
	case ok:
		err = h(&p.c, pr.value)
	case strings.HasPrefix(key, "server."):
		err = p.server(key, pr.value)
	default:
		if check, known := ignoredChecks[key]; known && check != nil {
			err = check(pr.value)
		}
		p.c.Ignored = append(p.c.Ignored, pr.key)
		p.c.IgnoredKeys = append(p.c.IgnoredKeys, classifyIgnored(p.name, pr.line, pr.key))
	}
	if err != nil {
		return fmt.Errorf("%s:%d: %s: %w", p.name, pr.line, pr.key, err)
	}
	return nil
}

// server records a server.N line after checking its form and ports, so a
// malformed line is reported at its own line rather than at start-up.
func (p *cfgParser) server(key, value string) error {
	id, err := strconv.ParseInt(strings.TrimPrefix(key, "server."), 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a server id", strings.TrimPrefix(key, "server."))
	}
	if _, err := parseServerLine(id, value); err != nil {
		return fmt.Errorf("%q: %w", value, err)
	}
	if _, _, _, err := serverClientAddr(value); err != nil {
		return fmt.Errorf("%q: client port: %w", value, err)
	}
	p.c.Servers[id] = value
	return nil
}

// finish resolves paths, reads myid and applies the cross-key rules of
// QuorumPeerConfig.
func (p *cfgParser) finish(baseDir string) error {
	c := &p.c
	c.DataDir = resolvePath(baseDir, c.DataDir)
	c.DataLogDir = resolvePath(baseDir, c.DataLogDir)
	c.Audit.File = resolvePath(baseDir, c.Audit.File)
	if c.DataLogDir == "" {
		c.DataLogDir = c.DataDir
	}
	if c.DataDir != "" {
		id, err := readMyID(c.DataDir)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		c.ServerID = id
	}
	if err := p.readDynamic(baseDir); err != nil {
		return err
	}
	if err := p.clientPortFromServers(); err != nil {
		return err
	}
	if err := p.checkSessionBounds(); err != nil {
		return err
	}
	if err := p.finishSecurity(); err != nil {
		return err
	}
	return p.checkQuorum()
}

// clientPortFromServers takes the client port from this server's server.N
// line (";[host:]port") and insists that a clientPort is configured.
func (p *cfgParser) clientPortFromServers() error {
	c := &p.c
	_, portSet := p.lines["clientPort"]
	if line, ok := c.Servers[c.ServerID]; ok && c.ServerID != 0 {
		host, port, found, err := serverClientAddr(line)
		key := "server." + strconv.FormatInt(c.ServerID, 10)
		switch {
		case err != nil:
			return p.errAt(key, err)
		case found && portSet && port != c.ClientPort:
			return p.errAt(key, fmt.Errorf("client port %d differs from clientPort %d", port, c.ClientPort))
		case found:
			c.ClientPort, portSet = port, true
			if host != "" && host != "0.0.0.0" {
				c.ClientPortAddress = host
			}
		}
	}
	if !portSet {
		if _, ok := p.lines["clientPortAddress"]; ok {
			return p.errAt("clientPortAddress", errors.New("clientPortAddress is set but clientPort is not set"))
		}
		return fmt.Errorf("%s: clientPort is not set", p.name)
	}
	return nil
}

// checkSessionBounds rejects minSessionTimeout > maxSessionTimeout, after
// the tickTime defaults, at the line of the key that made it so.
func (p *cfgParser) checkSessionBounds() error {
	c := &p.c
	if c.MinSession() <= c.MaxSession() {
		return nil
	}
	key := "maxSessionTimeout"
	if _, ok := p.lines[key]; !ok {
		key = "minSessionTimeout"
	}
	return p.errAt(key, fmt.Errorf("minSessionTimeout %v is larger than maxSessionTimeout %v", c.MinSession(), c.MaxSession()))
}

// ErrObserversWithoutQuorum is returned for observers next to fewer than
// two participants while standaloneEnabled is on (the single participant
// would run standalone), or next to none at all, as ZooKeeper refuses them.
var ErrObserversWithoutQuorum = errors.New("observers without a quorum of participants are an invalid configuration")

// checkQuorum applies QuorumPeerConfig.checkValidity to ensembles, and
// parseDynamicConfig's rule on observers.
func (p *cfgParser) checkQuorum() error {
	c := &p.c
	voters := 0
	for _, v := range c.Servers {
		if !strings.Contains(strings.SplitN(v, ";", 2)[0], ":observer") {
			voters++
		}
	}
	if observers := len(c.Servers) - voters; observers > 0 && (voters == 0 || (voters == 1 && c.StandaloneEnabled)) {
		return fmt.Errorf("%s: %d participant(s), %d observer(s), standaloneEnabled=%t: %w",
			p.name, voters, observers, c.StandaloneEnabled, ErrObserversWithoutQuorum)
	}
	if voters > 1 || (voters == 1 && !c.StandaloneEnabled) {
		switch {
		case c.InitLimit == 0:
			return fmt.Errorf("%s: initLimit is not set", p.name)
		case c.SyncLimit == 0:
			return fmt.Errorf("%s: syncLimit is not set", p.name)
		case c.ServerID == 0 && c.DataDir == "":
			return fmt.Errorf("%s: dataDir is not set (an ensemble needs dataDir/myid)", p.name)
		case c.ServerID == 0:
			return fmt.Errorf("%s: myid file is missing from %s", p.name, c.DataDir)
		}
		if _, ok := c.Servers[c.ServerID]; !ok {
			return fmt.Errorf("%s:1: myid: %d: %s has no server.%d line (it has %s)",
				filepath.Join(c.DataDir, "myid"), c.ServerID, p.name, c.ServerID, serverKeys(c.Servers))
		}
	}
	return nil
}

// serverKeys lists the server.N keys present, in id order.
func serverKeys(servers map[int64]string) string {
	ids := make([]int64, 0, len(servers))
	for id := range servers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = "server." + strconv.FormatInt(id, 10)
	}
	return strings.Join(keys, ", ")
}
