package tlsconf

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"

	"software.sslmate.com/src/go-pkcs12"
)

// parseTrustStore decodes a trust store of type t into its certificates.
// Every certificate becomes a trust anchor, as in Java's PKIX trust
// manager: a store may hold CAs or the peers' own certificates.
func parseTrustStore(t storeType, data []byte, password string) ([]*x509.Certificate, error) {
	if t != typePEM {
		var err error
		if t, err = sniffBinary(t, data); err != nil {
			return nil, err
		}
	}
	var (
		certs []*x509.Certificate
		err   error
	)
	switch t {
	case typePEM:
		certs, err = pemTrustStore(data)
	case typePKCS12:
		certs, err = pkcs12TrustStore(data, password)
	default:
		certs, err = jksTrustStore(data, password)
	}
	if err == nil && len(certs) == 0 {
		err = ErrNoTrustedCerts
	}
	return certs, err
}

// pemTrustStore reads every CERTIFICATE block (PemReader.loadTrustStore);
// other blocks are skipped, so a PEM key store can double as a trust store
// for its own chain. The password is not used.
func pemTrustStore(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return certs, nil
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %w", len(certs)+1, err)
		}
		certs = append(certs, c)
	}
}

// pkcs12TrustStore reads the trusted-certificate entries that keytool
// writes (certificate bags marked with Java's trust attribute). Bags without
// that mark are refused, not trusted: Java ignores them too, so such a
// store trusts nothing in ZooKeeper either.
func pkcs12TrustStore(data []byte, password string) ([]*x509.Certificate, error) {
	certs, err := pkcs12.DecodeTrustStore(data, password)
	if err != nil {
		err = pkcs12Error(err)
		if strings.Contains(err.Error(), "not marked as trusted") || strings.Contains(err.Error(), "only certificate bags") {
			err = fmt.Errorf("%w (a PKCS#12 trust store needs Java trusted-certificate entries, "+
				"as keytool -importcert makes; or use a PEM trust store)", err)
		}
		return nil, err
	}
	return certs, nil
}

// jksTrustStore reads a JKS file's trusted certificate entries. Private key
// entries are not trust anchors (Java's PKIXBuilderParameters ignores them).
func jksTrustStore(data []byte, password string) ([]*x509.Certificate, error) {
	ks, _, err := openJKS(data, password)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for _, alias := range ks.Aliases() {
		if !ks.IsTrustedCertificateEntry(alias) {
			continue
		}
		e, err := ks.GetTrustedCertificateEntry(alias)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", alias, err)
		}
		c, err := x509.ParseCertificate(e.Certificate.Content)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", alias, err)
		}
		certs = append(certs, c)
	}
	return certs, nil
}
