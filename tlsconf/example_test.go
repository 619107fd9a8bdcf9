package tlsconf_test

import (
	"crypto/tls"
	"log"
	"log/slog"
	"net"

	"github.com/zkraft/zkraft/tlsconf"
)

// A secure client port from zoo.cfg's ssl.* keys: the listener serves the
// newest certificate after the key store file is replaced.
func Example() {
	props := map[string]string{ // as read from zoo.cfg
		"secureClientPort":        "2281",
		"ssl.keyStore.location":   "/etc/zookeeper/tls/server.p12",
		"ssl.keyStore.password":   "changeit",
		"ssl.trustStore.location": "/etc/zookeeper/tls/ca.pem",
		"ssl.clientAuth":          "want",
	}
	cfg, set, err := tlsconf.FromProps(props, "ssl.")
	if err != nil {
		log.Fatal(err) // e.g. ssl.crl=true: revocation checking is not implemented
	}
	if !set {
		return // no TLS configured
	}
	src, err := tlsconf.Load(cfg, slog.Default())
	if err != nil {
		log.Fatal(err) // names the store that could not be read
	}
	defer src.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:2281")
	if err != nil {
		log.Fatal(err)
	}
	ln = tls.NewListener(ln, src.ServerConfig())
	defer ln.Close()
	// ... accept connections from ln
}
