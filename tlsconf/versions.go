package tlsconf

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
)

// defaultProtocol is X509Util.DEFAULT_PROTOCOL. ZooKeeper passes it to
// SSLContext.getInstance and, when ssl.enabledProtocols is unset, enables
// exactly that one protocol (SSLContextAndOptions.getEnabledProtocols), so
// an unconfigured ZooKeeper speaks TLS 1.2 and nothing else.
const defaultProtocol = "TLSv1.2"

// versionRange maps a Java protocol name to the Go versions it enables.
// "TLS" is Java's generic context name; enabling it literally fails in
// Java, so here it stands for Go's default range rather than an error.
func versionRange(name string) (lo, hi uint16, ok bool) {
	switch strings.ToLower(name) {
	case "tlsv1", "tlsv1.0":
		return tls.VersionTLS10, tls.VersionTLS10, true
	case "tlsv1.1":
		return tls.VersionTLS11, tls.VersionTLS11, true
	case "tlsv1.2":
		return tls.VersionTLS12, tls.VersionTLS12, true
	case "tlsv1.3":
		return tls.VersionTLS13, tls.VersionTLS13, true
	case "tls":
		return tls.VersionTLS12, tls.VersionTLS13, true
	}
	return 0, 0, false
}

// readVersions sets MinVersion/MaxVersion from ssl.protocol and
// ssl.enabledProtocols. Go can only enable a contiguous range of versions,
// so a list with a gap (TLSv1,TLSv1.2) is refused rather than widened.
func readVersions(r *propReader, c *Config) error {
	protocol, err := r.str("protocol")
	if err != nil {
		return err
	}
	if protocol == "" {
		protocol = defaultProtocol
	}
	if _, _, ok := versionRange(protocol); !ok {
		return fmt.Errorf("%sprotocol=%q: want TLSv1.2, TLSv1.3 (or TLSv1, TLSv1.1, TLS): %w", r.prefix, protocol, ErrBadValue)
	}
	enabled, err := r.str("enabledProtocols")
	if err != nil {
		return err
	}
	key := r.prefix + "enabledProtocols"
	if enabled == "" {
		enabled, key = protocol, r.prefix+"protocol"
	}
	c.MinVersion, c.MaxVersion, err = parseVersionList(enabled)
	if err != nil {
		return fmt.Errorf("%s=%q: %w", key, enabled, err)
	}
	return nil
}

// parseVersionList turns a comma list of protocol names into one range.
func parseVersionList(list string) (lo, hi uint16, err error) {
	var set []uint16
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		a, b, ok := versionRange(name)
		if !ok {
			return 0, 0, fmt.Errorf("unknown protocol %q (want TLSv1, TLSv1.1, TLSv1.2, TLSv1.3): %w", name, ErrBadValue)
		}
		for v := a; v <= b; v++ {
			if !slices.Contains(set, v) {
				set = append(set, v)
			}
		}
	}
	slices.Sort(set)
	for i := 1; i < len(set); i++ {
		if set[i] != set[i-1]+1 {
			return 0, 0, fmt.Errorf("Go enables one contiguous range of versions; list every version between "+
				"the lowest and highest: %w", ErrUnsupported)
		}
	}
	return set[0], set[len(set)-1], nil
}

// signallingSuites are pseudo cipher suites Java accepts in its list. Go
// always implements what they signal, so they are accepted and dropped.
var signallingSuites = []string{"TLS_EMPTY_RENEGOTIATION_INFO_SCSV", "TLS_FALLBACK_SCSV"}

// readCipherSuites parses ssl.ciphersuites (IANA names, which Go and Java
// share; Java's older SSL_ spellings are accepted too). Unknown names are
// an error. Java drops a protocol version for which no listed suite
// exists; the same is done here by narrowing the version range, so a list
// of TLS 1.2 suites keeps TLS 1.3 off as it would in ZooKeeper.
func readCipherSuites(r *propReader, c *Config) error {
	v, err := r.str("ciphersuites")
	if err != nil || v == "" {
		return err
	}
	key := r.prefix + "ciphersuites"
	legacy, modern, err := parseSuites(v)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if err := narrowVersions(c, legacy, modern); err != nil {
		return fmt.Errorf("%s=%q: %w", key, v, err)
	}
	c.CipherSuites = legacy
	return nil
}

// parseSuites splits a cipher list into TLS 1.0–1.2 suites and TLS 1.3
// suites, in the order given.
func parseSuites(list string) (legacy, modern []uint16, err error) {
	byName := map[string]*tls.CipherSuite{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		byName[s.Name] = s
	}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if strings.HasPrefix(name, "SSL_") {
			name = "TLS_" + strings.TrimPrefix(name, "SSL_")
		}
		if slices.Contains(signallingSuites, name) {
			continue
		}
		s, ok := byName[name]
		if !ok {
			return nil, nil, fmt.Errorf("cipher suite %q is unknown to Go's TLS stack: %w", name, ErrBadValue)
		}
		if isTLS13Only(s) {
			modern = append(modern, s.ID)
		} else if !slices.Contains(legacy, s.ID) {
			legacy = append(legacy, s.ID)
		}
	}
	return legacy, modern, nil
}

func isTLS13Only(s *tls.CipherSuite) bool {
	return len(s.SupportedVersions) == 1 && s.SupportedVersions[0] == tls.VersionTLS13
}

// narrowVersions fits the version range to the listed suites. Go cannot
// restrict TLS 1.3 suites, so a list naming only some of them while TLS 1.3
// stays enabled is refused: the unlisted ones would be offered anyway.
func narrowVersions(c *Config, legacy, modern []uint16) error {
	if len(legacy) == 0 && len(modern) == 0 {
		return fmt.Errorf("lists no cipher suites: %w", ErrBadValue)
	}
	if len(modern) == 0 && c.MaxVersion >= tls.VersionTLS13 {
		c.MaxVersion = tls.VersionTLS12
	}
	if len(legacy) == 0 && c.MinVersion < tls.VersionTLS13 {
		c.MinVersion = tls.VersionTLS13
	}
	if c.MinVersion > c.MaxVersion {
		return fmt.Errorf("no listed suite works with the enabled protocols: %w", ErrBadValue)
	}
	if len(modern) > 0 && c.MaxVersion >= tls.VersionTLS13 && !allTLS13(modern) {
		return fmt.Errorf("Go always enables all of its TLS 1.3 suites (%s); list all of them or none: %w",
			strings.Join(tls13Names(), ", "), ErrUnsupported)
	}
	return nil
}

func allTLS13(listed []uint16) bool {
	for _, s := range tls.CipherSuites() {
		if isTLS13Only(s) && !slices.Contains(listed, s.ID) {
			return false
		}
	}
	return true
}

func tls13Names() []string {
	var names []string
	for _, s := range tls.CipherSuites() {
		if isTLS13Only(s) {
			names = append(names, s.Name)
		}
	}
	return names
}
