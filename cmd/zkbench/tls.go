package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/go-zookeeper/zk"
)

// tlsFlags are the -tls-* flags: with -tls-ca set, every session speaks
// TLS to the secure client port, trusting the PEM CA file, and presents
// the PEM client certificate and key when given (ZooKeeper's secure port
// needs one unless ssl.clientAuth=none).
type tlsFlags struct {
	ca, cert, key string
}

// dialer returns the go-zookeeper dialer for the flags, or nil for
// plaintext.
func (f tlsFlags) dialer() (zk.Dialer, error) {
	if f.ca == "" {
		if f.cert != "" || f.key != "" {
			return nil, errors.New("-tls-cert and -tls-key need -tls-ca")
		}
		return nil, nil
	}
	pem, err := os.ReadFile(f.ca)
	if err != nil {
		return nil, fmt.Errorf("-tls-ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("-tls-ca: no PEM certificate in %s", f.ca)
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if f.cert != "" || f.key != "" {
		cert, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return nil, fmt.Errorf("-tls-cert/-tls-key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		c := cfg.Clone()
		c.ServerName = host
		d := &net.Dialer{Timeout: timeout}
		return tls.DialWithDialer(d, network, addr, c)
	}, nil
}

// sessionDialer is the dialer every session uses: nil (plaintext) unless
// the -tls-* flags ask for TLS. It is set once, before any load starts.
var sessionDialer zk.Dialer

// dialOption returns the go-zookeeper option that applies sessionDialer.
func dialOption() func(*zk.Conn) {
	if sessionDialer == nil {
		return func(*zk.Conn) {}
	}
	return zk.WithDialer(sessionDialer)
}
