// Package testpki makes throwaway certificate authorities and leaf
// certificates for tests of TLS: every leaf names 127.0.0.1 and localhost
// and may serve as both a server and a client certificate, and stores are
// written as PEM files the way ZooKeeper's PEM key and trust stores hold
// them.
package testpki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// PKI is a certificate authority.
type PKI struct {
	// Pool holds the CA certificate alone.
	Pool *x509.CertPool
	// CA is the authority's certificate.
	CA  *x509.Certificate
	key *ecdsa.PrivateKey
}

var serial atomic.Int64

// New makes a CA named name, valid for an hour either side of now.
func New(t testing.TB, name string) *PKI {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial.Add(1)), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatalf("testpki: CA: %v", err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("testpki: CA: %v", err)
	}
	p := &PKI{Pool: x509.NewCertPool(), CA: ca, key: key}
	p.Pool.AddCert(ca)
	return p
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("testpki: key: %v", err)
	}
	return key
}

// Issue signs a leaf certificate for subject that names 127.0.0.1 and
// localhost and serves both TLS servers and clients.
func (p *PKI) Issue(t testing.TB, subject pkix.Name) tls.Certificate {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial.Add(1)), Subject: subject,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.CA, &key.PublicKey, p.key)
	if err != nil {
		t.Fatalf("testpki: issue %s: %v", subject, err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// WritePEM writes cert's key and chain as one PEM key store, and this CA
// as a PEM trust store, in a new temporary directory.
func (p *PKI) WritePEM(t testing.TB, cert tls.Certificate) (keyStore, trustStore string) {
	t.Helper()
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatalf("testpki: key: %v", err)
	}
	ks := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	for _, c := range cert.Certificate {
		ks = append(ks, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c})...)
	}
	dir := t.TempDir()
	keyStore, trustStore = filepath.Join(dir, "key.pem"), filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(keyStore, ks, 0o600); err != nil {
		t.Fatalf("testpki: %v", err)
	}
	if err := os.WriteFile(trustStore, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.CA.Raw}), 0o644); err != nil {
		t.Fatalf("testpki: %v", err)
	}
	return keyStore, trustStore
}
