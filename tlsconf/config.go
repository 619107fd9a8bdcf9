package tlsconf

import (
	"crypto/tls"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Store names one key store or trust store file, as the
// ssl.keyStore.* / ssl.trustStore.* keys give it.
type Store struct {
	// Location is the file's path; empty means no store.
	Location string
	// Password opens the store (and, for key stores, the private key).
	Password string
	// PasswordPath names a file holding the password. When set it wins
	// over Password, as in ZooKeeper; it is re-read on every reload.
	PasswordPath string
	// Type is JKS, PEM or PKCS12 (any case). Empty means: from Location's
	// extension (.jks, .pem, .p12, .pfx).
	Type string
}

// Config is one side's TLS settings (client port or quorum), as zoo.cfg
// gives them. FromProps fills it with ZooKeeper's defaults for keys that
// are not set; a Config built by hand gets Go's zero values instead.
type Config struct {
	// KeyStore holds this server's private key and certificate chain.
	KeyStore Store
	// TrustStore holds the certificates peers are verified against; an
	// empty Location means the system's CA pool.
	TrustStore Store

	// ClientAuth is the server's client-certificate policy, from
	// ssl.clientAuth: none, want (verified when given) or need (default).
	ClientAuth tls.ClientAuthType
	// MinVersion and MaxVersion bound the protocol versions, from
	// ssl.protocol and ssl.enabledProtocols.
	MinVersion, MaxVersion uint16
	// CipherSuites restricts TLS 1.0–1.2 suites; nil means Go's defaults.
	// Go always offers all of its TLS 1.3 suites when 1.3 is enabled.
	CipherSuites []uint16

	// HostnameVerification checks, when dialling, that the server's
	// certificate names the host dialled (ssl.hostnameVerification,
	// default true).
	HostnameVerification bool
	// ClientHostnameVerification checks, when accepting, that a client's
	// certificate names the client's address. ZooKeeper 3.8 does this on
	// the quorum side only; it needs HostnameVerification too.
	ClientHostnameVerification bool
	// AllowReverseDNSLookup lets the client-address check fall back to the
	// address's reverse-DNS name (forward-confirmed) when the certificate
	// does not hold the IP (ssl.allowReverseDnsLookup; default false for
	// the client port, true for quorum).
	AllowReverseDNSLookup bool

	// HandshakeTimeout is ssl.handshakeDetectionTimeoutMillis: how long a
	// port-unification listener waits for a connection's first bytes
	// before deciding between TLS and plaintext. Default 5s.
	HandshakeTimeout time.Duration

	// PollInterval is how often the Source checks its files for changes;
	// zero means DefaultPollInterval and a negative value turns reloading
	// off (Reload can still be called).
	PollInterval time.Duration
}

// DefaultHandshakeTimeout is ZooKeeper's default for
// ssl.handshakeDetectionTimeoutMillis.
const DefaultHandshakeTimeout = 5 * time.Second

// DefaultPollInterval is how often a Source looks at its files when
// Config.PollInterval is zero.
const DefaultPollInterval = time.Second

// quorumPrefix is the prefix whose defaults differ: ZooKeeper's
// QuorumX509Util verifies connecting peers' hostnames and allows reverse
// DNS, ClientX509Util does neither.
const quorumPrefix = "ssl.quorum."

// FromProps reads the keys under prefix ("ssl." or "ssl.quorum.") from
// props (zoo.cfg key → value, keys as written). Each key may also be
// spelled with a leading "zookeeper." as a Java system property would be;
// giving both spellings different values is an error. It reports whether
// any key under the prefix was set, and returns an error naming the key for
// bad values or for checks it cannot honour (ssl.crl, ssl.ocsp,
// ssl.context.supplier.class).
func FromProps(props map[string]string, prefix string) (Config, bool, error) {
	r := newPropReader(props, prefix)
	quorum := r.prefix == quorumPrefix
	cfg := Config{}
	steps := []func(*propReader, *Config) error{
		readStores,
		readClientAuth,
		readVersions,
		readCipherSuites,
		func(r *propReader, c *Config) error { return readHostnameChecks(r, c, quorum) },
		readRevocation,
		readSupplier,
		readHandshakeTimeout,
	}
	for _, step := range steps {
		if err := step(r, &cfg); err != nil {
			return Config{}, r.any, err
		}
	}
	return cfg, r.any, nil
}

// propReader looks keys up under one prefix in both spellings and
// remembers whether any was found.
type propReader struct {
	props  map[string]string
	prefix string // normalised: "ssl." or "ssl.quorum." style, no "zookeeper."
	any    bool
}

const sysPropPrefix = "zookeeper."

func newPropReader(props map[string]string, prefix string) *propReader {
	prefix = strings.TrimPrefix(prefix, sysPropPrefix)
	if prefix != "" && !strings.HasSuffix(prefix, ".") {
		prefix += "."
	}
	return &propReader{props: props, prefix: prefix}
}

// get returns the trimmed value of prefix+suffix, looking at both the
// zoo.cfg and the system-property spelling.
func (r *propReader) get(suffix string) (string, bool, error) {
	key := r.prefix + suffix
	v1, ok1 := r.props[key]
	v2, ok2 := r.props[sysPropPrefix+key]
	v1, v2 = strings.TrimSpace(v1), strings.TrimSpace(v2)
	switch {
	case ok1 && ok2 && v1 != v2:
		return "", false, fmt.Errorf("%s and %s%s disagree (%q, %q): %w", key, sysPropPrefix, key, v1, v2, ErrBadValue)
	case ok1:
		r.any = true
		return v1, true, nil
	case ok2:
		r.any = true
		return v2, true, nil
	}
	return "", false, nil
}

// str returns the value of prefix+suffix, or "" when unset.
func (r *propReader) str(suffix string) (string, error) {
	v, _, err := r.get(suffix)
	return v, err
}

// boolean parses prefix+suffix as true/false (any case). ZooKeeper reads
// any other word as false, which would quietly turn a check off on a typo;
// here it is an error.
func (r *propReader) boolean(suffix string, def bool) (bool, error) {
	v, ok, err := r.get(suffix)
	if err != nil || !ok {
		return def, err
	}
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%s%s=%q: want true or false: %w", r.prefix, suffix, v, ErrBadValue)
}

func readStores(r *propReader, c *Config) error {
	var err error
	c.KeyStore, err = r.store("keyStore.")
	if err != nil {
		return err
	}
	c.TrustStore, err = r.store("trustStore.")
	return err
}

// store reads the four keys of one store and checks its type early, so a
// bad type is reported with its key rather than at load time.
func (r *propReader) store(sub string) (Store, error) {
	var s Store
	fields := []struct {
		suffix string
		dst    *string
	}{
		{"location", &s.Location}, {"password", &s.Password},
		{"passwordPath", &s.PasswordPath}, {"type", &s.Type},
	}
	for _, f := range fields {
		v, err := r.str(sub + f.suffix)
		if err != nil {
			return Store{}, err
		}
		*f.dst = v
	}
	if s.Location == "" {
		return s, nil
	}
	if _, err := storeTypeOf(s); err != nil {
		return Store{}, fmt.Errorf("%s%stype: %w", r.prefix, sub, err)
	}
	return s, nil
}

func readClientAuth(r *propReader, c *Config) error {
	v, err := r.str("clientAuth")
	if err != nil {
		return err
	}
	switch strings.ToLower(v) {
	case "", "need":
		c.ClientAuth = tls.RequireAndVerifyClientCert
	case "want":
		c.ClientAuth = tls.VerifyClientCertIfGiven
	case "none":
		c.ClientAuth = tls.NoClientCert
	default:
		return fmt.Errorf("%sclientAuth=%q: want none, want or need: %w", r.prefix, v, ErrBadValue)
	}
	return nil
}

// readHostnameChecks applies ZooKeeper's rule that client hostname
// verification happens only when hostname verification is on, with a
// per-side default (X509Util.isClientHostnameVerificationEnabled).
func readHostnameChecks(r *propReader, c *Config, quorum bool) error {
	var err error
	if c.HostnameVerification, err = r.boolean("hostnameVerification", true); err != nil {
		return err
	}
	client, err := r.boolean("clientHostnameVerification", quorum)
	if err != nil {
		return err
	}
	c.ClientHostnameVerification = c.HostnameVerification && client
	c.AllowReverseDNSLookup, err = r.boolean("allowReverseDnsLookup", quorum)
	return err
}

// readRevocation refuses ssl.crl=true and ssl.ocsp=true: Go's TLS stack
// does no revocation checking, and running without it while the operator
// asked for it would be a silent downgrade.
func readRevocation(r *propReader, _ *Config) error {
	for _, k := range []string{"crl", "ocsp"} {
		on, err := r.boolean(k, false)
		if err != nil {
			return err
		}
		if on {
			return fmt.Errorf("%s%s=true: certificate revocation checking is not implemented; "+
				"remove the key or set it to false: %w", r.prefix, k, ErrUnsupported)
		}
	}
	return nil
}

// readSupplier refuses ssl.context.supplier.class, a Java class that would
// build the whole SSLContext; nothing here can stand in for it.
func readSupplier(r *propReader, _ *Config) error {
	v, err := r.str("context.supplier.class")
	if err != nil || v == "" {
		return err
	}
	return fmt.Errorf("%scontext.supplier.class=%q: a Java SSLContext supplier cannot be used; "+
		"configure key and trust stores instead: %w", r.prefix, v, ErrUnsupported)
}

// readHandshakeTimeout follows SSLContextAndOptions: a non-number is an
// error, and a value below 1 falls back to the default because a zero
// timeout would let one silent connection block the listener.
func readHandshakeTimeout(r *propReader, c *Config) error {
	c.HandshakeTimeout = DefaultHandshakeTimeout
	v, err := r.str("handshakeDetectionTimeoutMillis")
	if err != nil || v == "" {
		return err
	}
	ms, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return fmt.Errorf("%shandshakeDetectionTimeoutMillis=%q: not an integer: %w", r.prefix, v, ErrBadValue)
	}
	if ms >= 1 {
		c.HandshakeTimeout = time.Duration(ms) * time.Millisecond
	}
	return nil
}
