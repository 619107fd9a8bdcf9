package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/tlsconf"
)

// Errors of the TLS options.
var (
	errTLSKeyPair = errors.New("zkcli: -tls-cert and -tls-key go together")
	errTLSNoCA    = errors.New("zkcli: no PEM certificate in the -tls-ca file")
)

// tlsOptions are the flags that make zkcli speak TLS to a secure client
// port: either PEM files named by -tls-* flags, or zkCli.sh's
// -client-configuration file with the Java client's properties
// (zookeeper.client.secure=true, zookeeper.ssl.keyStore.location, ...,
// read as ZooKeeper reads them, JKS and PKCS#12 stores included).
type tlsOptions struct {
	ca, cert, key, serverName string
	clientConfig              string
}

func (o *tlsOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.ca, "tls-ca", "", "speak TLS, trusting the CA certificates in this PEM `file`")
	fs.StringVar(&o.cert, "tls-cert", "", "PEM `file` of the client certificate to present (with -tls-key)")
	fs.StringVar(&o.key, "tls-key", "", "PEM `file` of the client certificate's private key")
	fs.StringVar(&o.serverName, "tls-server-name", "", "`name` the server's certificate must hold (default: the host of -server)")
	fs.StringVar(&o.clientConfig, "client-configuration", "", "Java properties `file` as zkCli.sh reads it: zookeeper.client.secure=true and zookeeper.ssl.* select TLS")
}

// configFor returns a function giving the TLS configuration for dialling
// a host, or nil when zkcli is to speak plaintext.
func (o *tlsOptions) configFor() (func(host string) *tls.Config, error) {
	if o.clientConfig != "" {
		return javaClientTLS(o.clientConfig, o.serverName)
	}
	if o.cert != "" || o.key != "" {
		if o.cert == "" || o.key == "" {
			return nil, errTLSKeyPair
		}
	}
	if o.ca == "" && o.cert == "" && o.serverName == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.ca != "" {
		pem, err := os.ReadFile(o.ca)
		if err != nil {
			return nil, fmt.Errorf("-tls-ca: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: %s", errTLSNoCA, o.ca)
		}
	}
	if o.cert != "" {
		pair, err := tls.LoadX509KeyPair(o.cert, o.key)
		if err != nil {
			return nil, fmt.Errorf("-tls-cert/-tls-key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return func(host string) *tls.Config {
		c := cfg.Clone()
		c.ServerName = host
		if o.serverName != "" {
			c.ServerName = o.serverName
		}
		return c
	}, nil
}

// javaClientTLS reads a Java properties file as zkCli.sh's
// -client-configuration does: TLS only with zookeeper.client.secure=true,
// then the zookeeper.ssl.* keys (hostname verification on by default).
func javaClientTLS(path, serverName string) (func(host string) *tls.Config, error) {
	props, err := readProperties(path)
	if err != nil {
		return nil, fmt.Errorf("-client-configuration: %w", err)
	}
	if !strings.EqualFold(strings.TrimSpace(props["zookeeper.client.secure"]), "true") {
		return nil, nil
	}
	cfg, _, err := tlsconf.FromProps(props, "ssl.")
	if err != nil {
		return nil, fmt.Errorf("-client-configuration %s: %w", path, err)
	}
	cfg.PollInterval = -1
	src, err := tlsconf.Load(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return nil, fmt.Errorf("-client-configuration %s: %w", path, err)
	}
	return func(host string) *tls.Config {
		if serverName != "" {
			host = serverName
		}
		return src.ClientConfigFor(host)
	}, nil
}

// readProperties reads a Java properties file (see javaProperties).
func readProperties(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	props := map[string]string{}
	for _, kv := range javaProperties(string(data)) {
		props[kv[0]] = kv[1]
	}
	return props, nil
}

// dialOption returns go-zookeeper's dialer option: plain TCP or TLS, each
// connection wrapped by the client's session tap (created here, one per
// session), which logs in by SASL when asked for (sasl.go).
func (c *client) dialOption() (func(*zk.Conn), error) {
	tlsFor, err := c.tls.configFor()
	if err != nil {
		return nil, err
	}
	saslClient, err := c.sasl.client(c.tls.clientConfig)
	if err != nil {
		return nil, err
	}
	c.tap = newSessionTap(c.timeout)
	tap := c.tap
	if saslClient != nil {
		tap.sasl = newSASLLogin(saslClient)
	}
	dial := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		if err := tap.sasl.failure(); err != nil {
			return nil, err // AUTH_FAILED: no more attempts
		}
		d := &net.Dialer{Timeout: timeout}
		if tlsFor == nil {
			nc, err := d.Dial(network, addr)
			if err != nil {
				return nil, err
			}
			return tap.wrap(nc), nil
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		nc, err := tls.DialWithDialer(d, network, addr, tlsFor(host))
		if err != nil {
			return nil, err
		}
		return tap.wrap(nc), nil
	}
	return zk.WithDialer(dial), nil
}
