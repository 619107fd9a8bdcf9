package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
)

// material is one consistent set of loaded keys and trust anchors. It is
// never modified after it is built; a reload builds a new one.
type material struct {
	certs []tls.Certificate // empty when no key store is configured
	roots *x509.CertPool
	// trusted lists the trust store's certificates (nil for the system
	// pool), kept for logging what a reload changed.
	trusted []*x509.Certificate
}

// loadMaterial parses both stores from snap.
func loadMaterial(cfg Config, snap fileSnap) (*material, error) {
	certs, err := loadKeyStore(cfg.KeyStore, snap)
	if err != nil {
		return nil, err
	}
	roots, trusted, err := loadTrustStore(cfg.TrustStore, snap)
	if err != nil {
		return nil, err
	}
	return &material{certs: certs, roots: roots, trusted: trusted}, nil
}

func loadKeyStore(s Store, snap fileSnap) ([]tls.Certificate, error) {
	if s.Location == "" {
		return nil, nil
	}
	certs, err := loadStore(s, snap, parseKeyStore)
	if err != nil {
		return nil, fmt.Errorf("key store %s: %w", s.Location, err)
	}
	return certs, nil
}

// loadTrustStore returns the trust anchors. With no trust store location
// ZooKeeper leaves the trust managers to the JVM, which trusts its default
// CA bundle; the system pool is the equivalent here.
func loadTrustStore(s Store, snap fileSnap) (*x509.CertPool, []*x509.Certificate, error) {
	if s.Location == "" {
		pool, err := x509.SystemCertPool()
		if err != nil {
			return nil, nil, fmt.Errorf("no trust store configured and the system CA pool is unavailable: %w", err)
		}
		return pool, nil, nil
	}
	certs, err := loadStore(s, snap, parseTrustStore)
	if err != nil {
		return nil, nil, fmt.Errorf("trust store %s: %w", s.Location, err)
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, certs, nil
}

// loadStore resolves the type and password of s and parses its bytes.
func loadStore[T any](s Store, snap fileSnap, parse func(storeType, []byte, string) (T, error)) (T, error) {
	var zero T
	t, err := storeTypeOf(s)
	if err != nil {
		return zero, err
	}
	pw, err := storePassword(s, snap)
	if err != nil {
		return zero, err
	}
	data, err := snap.get(s.Location)
	if err != nil {
		return zero, err
	}
	return parse(t, data, pw)
}
