package tlsconf

import (
	"crypto/tls"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestFromPropsDefaults(t *testing.T) {
	cfg, set, err := FromProps(map[string]string{"clientPort": "2181"}, "ssl.")
	if err != nil || set {
		t.Fatalf("FromProps = set %v, err %v; want nothing set and no error", set, err)
	}
	// X509Util: protocol TLSv1.2, enabled protocols = the protocol alone,
	// clientAuth need, hostname verification on; ClientX509Util: no client
	// hostname verification or reverse DNS on the client port.
	if cfg.MinVersion != tls.VersionTLS12 || cfg.MaxVersion != tls.VersionTLS12 {
		t.Errorf("versions = %x..%x, want TLS 1.2 only", cfg.MinVersion, cfg.MaxVersion)
	}
	if cfg.ClientAuth != tls.RequireAndVerifyClientCert {
		t.Errorf("ClientAuth = %v, want need", cfg.ClientAuth)
	}
	if !cfg.HostnameVerification || cfg.ClientHostnameVerification || cfg.AllowReverseDNSLookup {
		t.Errorf("hostname checks = %v/%v/%v, want true/false/false",
			cfg.HostnameVerification, cfg.ClientHostnameVerification, cfg.AllowReverseDNSLookup)
	}
	if cfg.HandshakeTimeout != 5*time.Second || cfg.CipherSuites != nil {
		t.Errorf("timeout %v ciphers %v, want 5s and Go's defaults", cfg.HandshakeTimeout, cfg.CipherSuites)
	}
}

func TestFromPropsQuorumDefaults(t *testing.T) {
	cfg, _, err := FromProps(map[string]string{}, "ssl.quorum.")
	if err != nil {
		t.Fatal(err)
	}
	// QuorumX509Util verifies connecting peers and allows reverse DNS.
	if !cfg.ClientHostnameVerification || !cfg.AllowReverseDNSLookup {
		t.Errorf("quorum: client hostname %v reverse DNS %v, want both on", cfg.ClientHostnameVerification, cfg.AllowReverseDNSLookup)
	}
	cfg, _, _ = FromProps(map[string]string{"ssl.quorum.hostnameVerification": "false"}, "ssl.quorum.")
	if cfg.ClientHostnameVerification {
		t.Error("client hostname verification must follow hostnameVerification=false")
	}
}

func TestFromPropsPrefixes(t *testing.T) {
	props := map[string]string{
		"ssl.quorum.keyStore.location":        "/q/key.pem",
		"zookeeper.ssl.keyStore.location":     "/c/key.pem",
		"zookeeper.ssl.keyStore.passwordPath": " /c/pw ",
	}
	cfg, set, err := FromProps(props, "ssl.")
	if err != nil || !set {
		t.Fatalf("set %v err %v", set, err)
	}
	if cfg.KeyStore.Location != "/c/key.pem" || cfg.KeyStore.PasswordPath != "/c/pw" {
		t.Errorf("client key store = %+v; the zookeeper.-spelled keys should apply, trimmed", cfg.KeyStore)
	}
	q, set, err := FromProps(props, "zookeeper.ssl.quorum")
	if err != nil || !set || q.KeyStore.Location != "/q/key.pem" {
		t.Errorf("quorum = %+v set %v err %v", q.KeyStore, set, err)
	}
	_, set, _ = FromProps(map[string]string{"ssl.quorum.clientAuth": "want"}, "ssl.")
	if set {
		t.Error("a ssl.quorum. key must not count as set for the ssl. prefix")
	}
}

func TestFromPropsVersionsAndCiphers(t *testing.T) {
	cases := []struct {
		props    map[string]string
		min, max uint16
		suites   []uint16
	}{
		{map[string]string{"ssl.protocol": "TLSv1.3"}, tls.VersionTLS13, tls.VersionTLS13, nil},
		{map[string]string{"ssl.enabledProtocols": "TLSv1.2, TLSv1.3"}, tls.VersionTLS12, tls.VersionTLS13, nil},
		{map[string]string{"ssl.protocol": "TLS"}, tls.VersionTLS12, tls.VersionTLS13, nil},
		// Only TLS 1.2 suites listed: Java cannot negotiate 1.3, so neither may Go.
		{map[string]string{"ssl.enabledProtocols": "TLSv1.2,TLSv1.3",
			"ssl.ciphersuites": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,SSL_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_EMPTY_RENEGOTIATION_INFO_SCSV"},
			tls.VersionTLS12, tls.VersionTLS12,
			[]uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}},
		// Only TLS 1.3 suites (all of Go's): TLS 1.2 goes.
		{map[string]string{"ssl.enabledProtocols": "TLSv1.2,TLSv1.3",
			"ssl.ciphersuites": "TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256"},
			tls.VersionTLS13, tls.VersionTLS13, nil},
	}
	for _, c := range cases {
		cfg, _, err := FromProps(c.props, "ssl.")
		if err != nil {
			t.Errorf("%v: %v", c.props, err)
			continue
		}
		if cfg.MinVersion != c.min || cfg.MaxVersion != c.max || !slices.Equal(cfg.CipherSuites, c.suites) {
			t.Errorf("%v: got %x..%x %v, want %x..%x %v", c.props, cfg.MinVersion, cfg.MaxVersion, cfg.CipherSuites, c.min, c.max, c.suites)
		}
	}
}

func TestFromPropsErrors(t *testing.T) {
	cases := []struct {
		props map[string]string
		want  error
		text  string
	}{
		{map[string]string{"ssl.clientAuth": "maybe"}, ErrBadValue, "ssl.clientAuth"},
		{map[string]string{"ssl.crl": "true"}, ErrUnsupported, "ssl.crl=true"},
		{map[string]string{"ssl.ocsp": "TRUE"}, ErrUnsupported, "ssl.ocsp=true"},
		{map[string]string{"ssl.context.supplier.class": "com.example.Ctx"}, ErrUnsupported, "supplier"},
		{map[string]string{"ssl.hostnameVerification": "yes"}, ErrBadValue, "ssl.hostnameVerification"},
		{map[string]string{"ssl.protocol": "SSLv3"}, ErrBadValue, "ssl.protocol"},
		{map[string]string{"ssl.enabledProtocols": "TLSv1,TLSv1.2"}, ErrUnsupported, "contiguous"},
		{map[string]string{"ssl.ciphersuites": "TLS_NO_SUCH_SUITE"}, ErrBadValue, "TLS_NO_SUCH_SUITE"},
		{map[string]string{"ssl.enabledProtocols": "TLSv1.3", "ssl.ciphersuites": "TLS_AES_128_GCM_SHA256"}, ErrUnsupported, "TLS 1.3"},
		{map[string]string{"ssl.protocol": "TLSv1.2", "ssl.ciphersuites": "TLS_AES_128_GCM_SHA256"}, ErrBadValue, "enabled protocols"},
		{map[string]string{"ssl.keyStore.location": "/k.bcfks"}, ErrUnsupported, "BCFKS"},
		{map[string]string{"ssl.trustStore.location": "/t", "ssl.trustStore.type": "JCEKS"}, ErrBadValue, "ssl.trustStore.type"},
		{map[string]string{"ssl.trustStore.location": "/t.crt"}, ErrBadValue, "store type"},
		{map[string]string{"ssl.handshakeDetectionTimeoutMillis": "5s"}, ErrBadValue, "handshakeDetectionTimeoutMillis"},
		{map[string]string{"ssl.clientAuth": "need", "zookeeper.ssl.clientAuth": "none"}, ErrBadValue, "disagree"},
	}
	for _, c := range cases {
		_, _, err := FromProps(c.props, "ssl.")
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%v: err = %v; want %v mentioning %q", c.props, err, c.want, c.text)
		}
	}
}

func TestFromPropsHandshakeTimeout(t *testing.T) {
	for v, want := range map[string]time.Duration{"250": 250 * time.Millisecond, "0": 5 * time.Second, "-3": 5 * time.Second} {
		cfg, _, err := FromProps(map[string]string{"ssl.handshakeDetectionTimeoutMillis": v}, "ssl.")
		if err != nil || cfg.HandshakeTimeout != want {
			t.Errorf("%s: %v %v, want %v", v, cfg.HandshakeTimeout, err, want)
		}
	}
}

func TestFromPropsClientAuth(t *testing.T) {
	for v, want := range map[string]tls.ClientAuthType{
		"none": tls.NoClientCert, "WANT": tls.VerifyClientCertIfGiven, "Need": tls.RequireAndVerifyClientCert, "": tls.RequireAndVerifyClientCert,
	} {
		cfg, _, err := FromProps(map[string]string{"ssl.clientAuth": v}, "ssl.")
		if err != nil || cfg.ClientAuth != want {
			t.Errorf("%q: %v %v, want %v", v, cfg.ClientAuth, err, want)
		}
	}
}
