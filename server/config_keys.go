package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// keyHandlers parses the zoo.cfg keys zkraft implements, by canonical name.
var keyHandlers = map[string]func(c *Config, v string) error{
	"tickTime":                      setTickTime,
	"clientPort":                    func(c *Config, v string) (err error) { c.ClientPort, err = parsePort(v); return },
	"clientPortAddress":             func(c *Config, v string) error { c.ClientPortAddress = v; return nil },
	"dataDir":                       func(c *Config, v string) error { c.DataDir = v; return nil },
	"dataLogDir":                    func(c *Config, v string) error { c.DataLogDir = v; return nil },
	"maxClientCnxns":                setInt(func(c *Config) *int { return &c.MaxClientCnxns }, 0),
	"maxCnxns":                      setInt(func(c *Config) *int { return &c.MaxCnxns }, 0),
	"minSessionTimeout":             setSessionTimeout(func(c *Config) *time.Duration { return &c.MinSessionTimeout }),
	"maxSessionTimeout":             setSessionTimeout(func(c *Config) *time.Duration { return &c.MaxSessionTimeout }),
	"initLimit":                     setInt(func(c *Config) *int { return &c.InitLimit }, 0),
	"syncLimit":                     setInt(func(c *Config) *int { return &c.SyncLimit }, 0),
	"reconfigEnabled":               setBool(func(c *Config) *bool { return &c.ReconfigEnabled }),
	"dynamicConfigFile":             func(c *Config, v string) error { c.DynamicConfigFile = v; return nil },
	"standaloneEnabled":             setBool(func(c *Config) *bool { return &c.StandaloneEnabled }),
	"localSessionsEnabled":          setBool(func(c *Config) *bool { return &c.LocalSessionsEnabled }),
	"localSessionsUpgradingEnabled": setBool(func(c *Config) *bool { return &c.LocalSessionsUpgradingEnabled }),

	// zookeeper.* system properties (also accepted with the prefix).
	"4lw.commands.whitelist":                   func(c *Config, v string) error { c.FourLetterWhitelist = parseWhitelist(v); return nil },
	"extendedTypesEnabled":                     setBool(func(c *Config) *bool { return &c.ExtendedTypesEnabled }),
	"DigestAuthenticationProvider.superDigest": func(c *Config, v string) error { c.SuperDigest = v; return nil },
	"admin.enableServer":                       setBool(func(c *Config) *bool { return &c.AdminEnableServer }),
	"admin.serverAddress":                      func(c *Config, v string) error { c.AdminServerAddress = v; return nil },
	"admin.serverPort":                         func(c *Config, v string) (err error) { c.AdminServerPort, err = parsePort(v); return },
	"admin.commandURL":                         func(c *Config, v string) error { c.AdminCommandURL = v; return nil },
	"snapCount":                                setSnapCount,
	"snapSizeLimitInKb":                        setSnapSizeLimit,
	"forceSync":                                setYesNo(func(c *Config) *bool { return &c.ForceSync }),
	"autopurge.snapRetainCount":                setInt(func(c *Config) *int { return &c.SnapRetainCount }, 0),
	"nio.sessionlessCnxnTimeout":               setDecoded(func(c *Config, n int64) { c.SessionlessCnxnTimeout = ms(n) }, 1, 1<<31-1),

	// JVM-only properties in ZooKeeper, accepted here as zoo.cfg keys.
	"jute.maxbuffer":                         setDecoded(func(c *Config, n int64) { c.MaxBuffer = int(n) }, 1, 1<<31-1),
	"readonlymode.enabled":                   setBool(func(c *Config) *bool { return &c.ReadOnlyMode }),
	"znode.container.checkIntervalMs":        setDecoded(func(c *Config, n int64) { c.ContainerCheckInterval = ms(n) }, 1, 1<<31-1),
	"znode.container.maxNeverUsedIntervalMs": setDecoded(func(c *Config, n int64) { c.ContainerMaxNeverUsed = ms(n) }, 0, 1<<62/int64(time.Millisecond)),

	// zkraft's own keys (bytes, decimal or 0x hex).
	"zkraft.clientOutputLimit":      setDecoded(func(c *Config, n int64) { c.ClientOutputLimit = int(n) }, 1, 1<<31-1),
	"zkraft.totalClientOutputLimit": setDecoded(func(c *Config, n int64) { c.TotalClientOutputLimit = n }, 1, 1<<62),
}

// sysPropKeys are the handled keys that ZooKeeper reads as zookeeper.X
// system properties, so zoo.cfg may spell them X or zookeeper.X.
var sysPropKeys = map[string]bool{
	"4lw.commands.whitelist": true, "extendedTypesEnabled": true,
	"DigestAuthenticationProvider.superDigest": true, "admin.enableServer": true,
	"admin.serverAddress": true, "admin.serverPort": true, "admin.commandURL": true,
	"snapCount": true, "snapSizeLimitInKb": true, "forceSync": true, "nio.sessionlessCnxnTimeout": true,
}

// ignoredChecks holds recognised keys that zkraft ignores but whose values
// ZooKeeper's parseProperties validates; the same check is applied here.
var ignoredChecks = map[string]func(v string) error{
	"observerMasterPort":                    checkInt,
	"clientPortListenBacklog":               checkInt,
	"connectToLearnerMasterLimit":           checkInt,
	"quorum.cnxn.threads.size":              checkInt,
	"quorumListenOnAllIPs":                  checkBool,
	"syncEnabled":                           checkBool,
	"portUnification":                       checkBool,
	"sslQuorumReloadCertFiles":              checkBool,
	"multiAddress.enabled":                  checkBool,
	"multiAddress.reachabilityCheckEnabled": checkBool,
	"electionAlg": func(v string) error {
		if v != "3" {
			return fmt.Errorf("%q is not supported (only 3)", v)
		}
		return nil
	},
	"peerType": func(v string) error {
		if l := strings.ToLower(v); l != "observer" && l != "participant" {
			return fmt.Errorf("%q is not observer or participant", v)
		}
		return nil
	},
}

// canonicalKey strips the zookeeper. prefix from system-property keys.
func canonicalKey(key string) string {
	if rest, ok := strings.CutPrefix(key, "zookeeper."); ok && sysPropKeys[rest] {
		return rest
	}
	return key
}

// ms converts milliseconds to a Duration.
func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// parseInt parses a decimal int as Java's Integer.parseInt.
func parseInt(v string) (int, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%q is out of range", v)
	}
	if err != nil || strings.Contains(v, "_") {
		return 0, fmt.Errorf("%q is not an integer", v)
	}
	return int(n), nil
}

// parseDecoded parses an integer as Java's Long.decode (used by
// Integer.getInteger): decimal, 0x/0X/# hex or leading-0 octal, with an
// optional sign.
func parseDecoded(v string) (int64, error) {
	s, neg := v, false
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		s, neg = rest, true
	} else {
		s = strings.TrimPrefix(s, "+")
	}
	base := 10
	switch {
	case strings.HasPrefix(s, "0x"), strings.HasPrefix(s, "0X"):
		s, base = s[2:], 16
	case strings.HasPrefix(s, "#"):
		s, base = s[1:], 16
	case len(s) > 1 && s[0] == '0':
		s, base = s[1:], 8
	}
	n, err := strconv.ParseUint(s, base, 63)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%q is out of range", v)
	}
	if err != nil || s == "" || s[0] == '+' || s[0] == '-' || strings.Contains(s, "_") {
		return 0, fmt.Errorf("%q is not an integer", v)
	}
	if neg {
		return -int64(n), nil
	}
	return int64(n), nil
}

// parseBool parses true/false, ignoring case, as QuorumPeerConfig.parseBoolean.
func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean (true or false)", v)
}

// parsePort parses a TCP port in 1..65535.
func parsePort(v string) (int, error) {
	n, err := parseInt(v)
	if err != nil {
		return 0, err
	}
	if n < 1 || n > 65535 {
		return 0, fmt.Errorf("%q is not a valid port (1-65535)", v)
	}
	return n, nil
}

// parseWhitelist splits a comma-separated 4lw list; "*" anywhere means all.
func parseWhitelist(v string) []string {
	list := []string{}
	for _, w := range strings.Split(v, ",") {
		w = strings.TrimSpace(w)
		if w == "*" {
			return []string{"*"}
		}
		if w != "" {
			list = append(list, w)
		}
	}
	return list
}

func checkInt(v string) error { _, err := parseInt(v); return err }

func checkBool(v string) error { _, err := parseBool(v); return err }

// setInt returns a handler storing an int that must be at least min.
func setInt(field func(*Config) *int, lo int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := parseInt(v)
		if err != nil {
			return err
		}
		if n < lo {
			return fmt.Errorf("%q must not be less than %d", v, lo)
		}
		*field(c) = n
		return nil
	}
}

// setTickTime stores tickTime, which must be positive.
func setTickTime(c *Config, v string) error {
	n, err := parseInt(v)
	if err != nil {
		return err
	}
	if n <= 0 {
		return fmt.Errorf("%q must be positive", v)
	}
	c.TickTime = ms(int64(n))
	return nil
}

// setSessionTimeout stores a session-timeout bound; -1 (ZooKeeper's
// "unset") and 0 select the tickTime-based default.
func setSessionTimeout(field func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := parseInt(v)
		if err != nil {
			return err
		}
		if n < -1 {
			return fmt.Errorf("%q must not be negative", v)
		}
		*field(c) = ms(int64(max(n, 0)))
		return nil
	}
}

// setBool returns a handler storing a boolean.
func setBool(field func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, err := parseBool(v)
		if err != nil {
			return err
		}
		*field(c) = b
		return nil
	}
}

// setDecoded returns a handler for a Long.decode value in [lo, hi].
func setDecoded(set func(*Config, int64), lo, hi int64) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := parseDecoded(v)
		if err != nil {
			return err
		}
		if n < lo || n > hi {
			return fmt.Errorf("%q is out of range (%d-%d)", v, lo, hi)
		}
		set(c, n)
		return nil
	}
}

// setSnapCount stores zookeeper.snapCount, raised to 2 as ZooKeeper does.
func setSnapCount(c *Config, v string) error {
	n, err := parseDecoded(v)
	if err != nil {
		return err
	}
	if n > 1<<31-1 || n < -1<<31 {
		return fmt.Errorf("%q is out of range", v)
	}
	c.SnapCount = int(max(n, 2))
	return nil
}

// setSnapSizeLimit stores zookeeper.snapSizeLimitInKb (kibibytes) in
// bytes; zero or a negative value turns the size limit off, as in
// ZooKeeper.
func setSnapSizeLimit(c *Config, v string) error {
	n, err := parseDecoded(v)
	if err != nil {
		return err
	}
	if n > 1<<53 || n < -1<<53 {
		return fmt.Errorf("%q is out of range", v)
	}
	c.SnapSizeLimit = n * 1024
	if n <= 0 {
		c.SnapSizeLimit = -1
	}
	return nil
}

// resolvePath makes a relative path relative to baseDir, if given.
func resolvePath(baseDir, path string) string {
	if path == "" || baseDir == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(baseDir, path)
}

// readMyID reads dir/myid; a missing file gives 0.
func readMyID(dir string) (int64, error) {
	path := filepath.Join(dir, "myid")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not an integer", path, s)
	}
	if id < 0 {
		return 0, fmt.Errorf("%s: %q must not be negative", path, s)
	}
	return id, nil
}

// serverClientAddr extracts the client address from a server.N value
// "host:port:port[:type][;[host:]port[;secure]]".
func serverClientAddr(v string) (host string, port int, found bool, err error) {
	parts := strings.Split(v, ";")
	if len(parts) < 2 || strings.TrimSpace(parts[1]) == "" {
		return "", 0, false, nil
	}
	client := strings.TrimSpace(parts[1])
	portStr := client
	if i := strings.LastIndexByte(client, ':'); i >= 0 {
		host, portStr = strings.Trim(client[:i], "[]"), client[i+1:]
		if strings.Contains(host, ":") && !strings.HasPrefix(client, "[") {
			return "", 0, false, fmt.Errorf("%q is not a valid client address", client)
		}
	}
	port, err = parsePort(portStr)
	if err != nil {
		return "", 0, false, err
	}
	return host, port, true, nil
}

// setYesNo parses ZooKeeper's yes/no switches (forceSync): "no" is false,
// anything else true, as ZooKeeper's check is equalsIgnoreCase("no").
func setYesNo(field func(c *Config) *bool) func(c *Config, v string) error {
	return func(c *Config, v string) error {
		*field(c) = !strings.EqualFold(strings.TrimSpace(v), "no")
		return nil
	}
}
