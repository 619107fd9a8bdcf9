package admin

import (
	"crypto/tls"
	"maps"
	"slices"
	"strings"
)

// ZooKeeper's JettyAdminServer hands Jetty the quorum's stores but not its
// protocol keys: in 3.8 and 3.9 Jetty's own defaults decide, which on a
// current JDK are TLS 1.2 and 1.3, minus the suites Jetty excludes
// (RSA key exchange, SHA-1 MACs). ZOOKEEPER-5023 (after 3.9) passes
// ssl.quorum.enabledProtocols and ssl.quorum.ciphersuites on when they are
// set, and still never ssl.quorum.protocol. zkraft does the same: an
// operator who narrows those keys gets what they asked for, one who does
// not gets what Jetty serves.

// jettyProtocols is the ssl.quorum.enabledProtocols the AdminServer uses
// when that key is unset (Jetty on JDK 17: SSLv3, TLS 1.0 and 1.1 are off).
const jettyProtocols = "TLSv1.2,TLSv1.3"

// adminTLSProps returns the ssl.quorum.* keys as the AdminServer reads
// them: enabledProtocols defaults to jettyProtocols rather than following
// ssl.quorum.protocol. props is not changed.
func adminTLSProps(props map[string]string) map[string]string {
	out := make(map[string]string, len(props)+1)
	maps.Copy(out, props)
	if !hasQuorumKey(props, "enabledProtocols") {
		out["ssl.quorum.enabledProtocols"] = jettyProtocols
	}
	return out
}

// hasQuorumKey reports whether ssl.quorum.<suffix> is set, in its zoo.cfg
// or its system-property (zookeeper.) spelling.
func hasQuorumKey(props map[string]string, suffix string) bool {
	for _, k := range []string{"ssl.quorum." + suffix, "zookeeper.ssl.quorum." + suffix} {
		if strings.TrimSpace(props[k]) != "" {
			return true
		}
	}
	return false
}

// jettySuites are the TLS 1.2 suites the AdminServer offers when
// ssl.quorum.ciphersuites is unset: Go's secure suites without those Jetty
// excludes by default (TLS_RSA_* and names ending in _SHA). Jetty also
// accepts the CBC suites with SHA-256/384 MACs, which Go ranks insecure
// and does not offer here.
func jettySuites() []uint16 {
	var ids []uint16
	for _, s := range tls.CipherSuites() {
		if !slices.Contains(s.SupportedVersions, tls.VersionTLS12) ||
			strings.HasPrefix(s.Name, "TLS_RSA_") || strings.HasSuffix(s.Name, "_SHA") {
			continue
		}
		ids = append(ids, s.ID)
	}
	return ids
}
