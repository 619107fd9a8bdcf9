package server

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/zkraft/zkraft/tlsconf"
)

// This file reads the zoo.cfg keys about encryption and authentication.
// ZooKeeper turns every zoo.cfg key it does not know into a zookeeper.KEY
// system property, which is how ssl.*, authProvider.N, superUser and the
// enforce.auth keys reach it from a zoo.cfg; here both spellings are
// accepted. A setting that asks for protection zkraft cannot give stops the
// server at start (checkSecurity): a server that runs open while its
// operator believes it is locked is worse than one that does not start.

// Security is the TLS and authentication part of a configuration.
type Security struct {
	// SecureClientPort is the TLS client port (secureClientPort; 0: none).
	SecureClientPort int
	// SecureClientPortAddress is its listen address (default: that of
	// the client port).
	SecureClientPortAddress string
	// PortUnification lets the plaintext client port accept TLS too
	// (zookeeper.client.portUnification).
	PortUnification bool
	// SSLProps holds the ssl.* keys as written (without a zookeeper.
	// prefix), for the tlsconf package to read.
	SSLProps map[string]string
	// SSLQuorum makes the links between the servers of an ensemble TLS
	// (sslQuorum), from the ssl.quorum.* keys in SSLQuorumProps.
	SSLQuorum      bool
	SSLQuorumProps map[string]string
	// QuorumSASL authenticates the links between the servers of an
	// ensemble with SASL DIGEST-MD5 (the quorum.auth.* keys).
	QuorumSASL QuorumSASL
	// Providers are the authProvider.N classes, by N.
	Providers map[string]string
	// X509SuperUser is the certificate subject that gets super
	// (zookeeper.X509AuthenticationProvider.superUser).
	X509SuperUser string
	// SuperUser is the SASL id that gets super (zookeeper.superUser).
	SuperUser string
	// AllowSASLFailedClients keeps a connection whose SASL exchange failed
	// (zookeeper.allowSaslFailedClients).
	AllowSASLFailedClients bool
	// EnforceAuth makes every request but auth and sasl fail with
	// SESSIONCLOSEDREQUIRESASLAUTH, closing the connection, until the
	// connection holds an id of one of EnforceAuthSchemes
	// (enforce.auth.enabled, enforce.auth.schemes; sessionRequireClientSASLAuth
	// sets both, with scheme sasl).
	EnforceAuth        bool
	EnforceAuthSchemes []string
	// LetAnySASLUserDoX is zookeeper.letAnySaslUserDoX.
	LetAnySASLUserDoX string
	// JAASFile is the JAAS login configuration (the JVM's
	// java.security.auth.login.config); JAASSection its server section
	// (zookeeper.sasl.serverconfig; "" means Server).
	JAASFile    string
	JAASSection string
	// SASLSuperPassword overrides the password of the JAAS user "super"
	// (zookeeper.SASLAuthenticationProvider.superPassword).
	SASLSuperPassword string
	// KerberosRemoveHost and KerberosRemoveRealm strip "/host" and
	// "@REALM" from a Kerberos client's principal to make its sasl id
	// (kerberos.removeHostFromPrincipal, kerberos.removeRealmFromPrincipal).
	KerberosRemoveHost, KerberosRemoveRealm bool
	// SystemProperties are the JVM -D properties the server was started
	// with (SERVER_JVMFLAGS); ${name} in the JAAS file expands to them.
	SystemProperties map[string]string

	requireSASL bool // sessionRequireClientSASLAuth, applied by finishSecurity
}

// Provider classes of Apache ZooKeeper that zkraft implements.
const (
	providerSASL   = "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"
	providerX509   = "org.apache.zookeeper.server.auth.X509AuthenticationProvider"
	providerDigest = "org.apache.zookeeper.server.auth.DigestAuthenticationProvider"
	providerIP     = "org.apache.zookeeper.server.auth.IPAuthenticationProvider"
)

// providerSchemes maps each implemented provider class to its scheme.
var providerSchemes = map[string]string{providerSASL: "sasl", providerX509: "x509", providerDigest: "digest", providerIP: "ip"}

// securityKeys are the security keys zkraft implements, by canonical name.
var securityKeys = map[string]func(c *Config, v string) error{
	"secureClientPort":                         func(c *Config, v string) (err error) { c.Security.SecureClientPort, err = parsePort(v); return },
	"secureClientPortAddress":                  func(c *Config, v string) error { c.Security.SecureClientPortAddress = v; return nil },
	"client.portUnification":                   setBool(func(c *Config) *bool { return &c.Security.PortUnification }),
	"X509AuthenticationProvider.superUser":     func(c *Config, v string) error { c.Security.X509SuperUser = v; return nil },
	"superUser":                                func(c *Config, v string) error { c.Security.SuperUser = v; return nil },
	"allowSaslFailedClients":                   setBool(func(c *Config) *bool { return &c.Security.AllowSASLFailedClients }),
	"enforce.auth.enabled":                     setBool(func(c *Config) *bool { return &c.Security.EnforceAuth }),
	"enforce.auth.schemes":                     setEnforceSchemes,
	"sessionRequireClientSASLAuth":             setRequireSASL,
	"letAnySaslUserDoX":                        func(c *Config, v string) error { c.Security.LetAnySASLUserDoX = v; return nil },
	"sasl.serverconfig":                        func(c *Config, v string) error { c.Security.JAASSection = v; return nil },
	"SASLAuthenticationProvider.superPassword": func(c *Config, v string) error { c.Security.SASLSuperPassword = v; return nil },
	"java.security.auth.login.config":          func(c *Config, v string) error { c.Security.JAASFile = v; return nil },
	"ssl.authProvider":                         checkSSLAuthProvider,
	"sslQuorum":                                setBool(func(c *Config) *bool { return &c.Security.SSLQuorum }),
	"kerberos.removeHostFromPrincipal":         setBool(func(c *Config) *bool { return &c.Security.KerberosRemoveHost }),
	"kerberos.removeRealmFromPrincipal":        setBool(func(c *Config) *bool { return &c.Security.KerberosRemoveRealm }),
}

// refusedWhenTrue are boolean keys that ask for what zkraft does not do
// yet: set to true, they stop the server.
var refusedWhenTrue = map[string]string{
	"ssl.crl":  "certificate revocation lists",
	"ssl.ocsp": "OCSP checks",
}

// errUnsupportedSecurity marks a security setting zkraft cannot honour.
var errUnsupportedSecurity = errors.New("zkraft does not support this, and will not run without it")

// applySecurity handles key if it is a security key; it reports whether it was.
func (p *cfgParser) applySecurity(key, value string) (bool, error) {
	if set, ok := securityKeys[key]; ok {
		return true, set(&p.c, value)
	}
	if what, ok := refusedWhenTrue[key]; ok {
		on, err := parseBool(value)
		if err == nil && on {
			err = fmt.Errorf("%s: %w", what, errUnsupportedSecurity)
		}
		return true, err
	}
	if n, ok := strings.CutPrefix(key, "authProvider."); ok {
		return true, setProvider(&p.c, n, value)
	}
	if strings.HasPrefix(key, "ssl.quorum.") {
		if p.c.Security.SSLQuorumProps == nil {
			p.c.Security.SSLQuorumProps = map[string]string{}
		}
		p.c.Security.SSLQuorumProps[key] = value
		return true, nil
	}
	if strings.HasPrefix(key, "ssl.") {
		if p.c.Security.SSLProps == nil {
			p.c.Security.SSLProps = map[string]string{}
		}
		p.c.Security.SSLProps[key] = value
		return true, nil
	}
	return false, nil
}

// securityKey strips the zookeeper. prefix ZooKeeper's system properties
// carry from a security key.
func securityKey(key string) string {
	rest, ok := strings.CutPrefix(key, "zookeeper.")
	if !ok {
		return key
	}
	if _, known := securityKeys[rest]; known || strings.HasPrefix(rest, "ssl.") || strings.HasPrefix(rest, "authProvider.") {
		return rest
	}
	return key
}

func setProvider(c *Config, n, class string) error {
	if _, ok := providerSchemes[class]; !ok {
		return fmt.Errorf("authentication provider class %q: %w (zkraft implements sasl, x509, digest and ip)", class, errUnsupportedSecurity)
	}
	if c.Security.Providers == nil {
		c.Security.Providers = map[string]string{}
	}
	c.Security.Providers[n] = class
	return nil
}

func setEnforceSchemes(c *Config, v string) error {
	c.Security.EnforceAuthSchemes = nil
	for s := range strings.SplitSeq(v, ",") {
		c.Security.EnforceAuthSchemes = append(c.Security.EnforceAuthSchemes, strings.TrimSpace(s))
	}
	return nil
}

// setRequireSASL is sessionRequireClientSASLAuth: it overrides the
// enforce.auth keys with enforcement of sasl, as ZooKeeper's
// AuthenticationHelper does.
func setRequireSASL(c *Config, v string) error {
	on, err := parseBool(v)
	if err == nil && on {
		c.Security.requireSASL = true
	}
	return err
}

func checkSSLAuthProvider(_ *Config, v string) error {
	if v != "x509" && v != providerX509 {
		return fmt.Errorf("ssl.authProvider %q: %w (only x509)", v, errUnsupportedSecurity)
	}
	return nil
}

// Schemes returns the authentication schemes the configuration makes
// available: ip and digest always, and those of the authProvider.N keys.
// A TLS port makes x509 available too, as ZooKeeper's X509Util does.
func (s Security) Schemes() []string {
	out := []string{"digest", "ip"}
	for _, class := range s.Providers {
		if sc := providerSchemes[class]; !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	if s.TLSEnabled() && !slices.Contains(out, "x509") {
		out = append(out, "x509")
	}
	slices.Sort(out)
	return out
}

// saslEnforced reports whether enforce.auth requires the sasl scheme
// (ZooKeeper's AuthenticationHelper.isSaslAuthRequired).
func (s Security) saslEnforced() bool {
	return s.EnforceAuth && slices.Contains(s.EnforceAuthSchemes, "sasl")
}

// TLSEnabled reports whether some client port speaks TLS.
func (s Security) TLSEnabled() bool { return s.SecureClientPort != 0 || s.PortUnification }

// finishSecurity applies the cross-key rules: the quorum.auth.* keys'
// (QuorumSASL.check), sessionRequireClientSASLAuth over the enforce.auth
// keys, and enforced schemes that exist.
func (p *cfgParser) finishSecurity() error {
	s := &p.c.Security
	if err := s.QuorumSASL.check(); err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	if s.requireSASL {
		s.EnforceAuth, s.EnforceAuthSchemes = true, []string{"sasl"}
	}
	if !s.EnforceAuth {
		return nil
	}
	if len(s.EnforceAuthSchemes) == 0 {
		return fmt.Errorf("%s: enforce.auth.enabled is true but enforce.auth.schemes is not set", p.name)
	}
	have := s.Schemes()
	for _, sc := range s.EnforceAuthSchemes {
		if !slices.Contains(have, sc) {
			return fmt.Errorf("%s: enforce.auth.schemes: authentication scheme %q is not available (configure its authProvider.N)", p.name, sc)
		}
	}
	return nil
}

// EphemeralPort, as SecureClientPort in a Config built in code, opens the
// secure client port on any free port (see Server.SecureAddr).
const EphemeralPort = -1

// loadClientTLS builds the client ports' TLS from the ssl.* keys: the
// stores are read now (a missing or undecryptable one fails the start)
// and again whenever their files change.
func loadClientTLS(s Security, log *slog.Logger) (*clientTLS, error) {
	cfg, _, err := tlsconf.FromProps(s.SSLProps, "ssl.")
	if err != nil {
		return nil, fmt.Errorf("server: client TLS: %w", err)
	}
	src, err := tlsconf.Load(cfg, log)
	if err != nil {
		return nil, fmt.Errorf("server: client TLS: %w", err)
	}
	timeout := cfg.HandshakeTimeout
	if timeout <= 0 {
		timeout = defaultTLSHandshakeTimeout
	}
	return &clientTLS{config: src.ServerConfig, timeout: timeout, close: src.Close}, nil
}
