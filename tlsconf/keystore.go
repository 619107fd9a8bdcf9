package tlsconf

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// A key store yields one or more certificates with their private keys. The
// functions here take the file's bytes (read once by the caller, so that
// what is loaded is what was fingerprinted) and return errors without the
// file name, which the caller adds.

// parseKeyStore decodes a key store of type t.
func parseKeyStore(t storeType, data []byte, password string) ([]tls.Certificate, error) {
	if t != typePEM {
		var err error
		if t, err = sniffBinary(t, data); err != nil {
			return nil, err
		}
	}
	switch t {
	case typePEM:
		return pemKeyStore(data, password)
	case typePKCS12:
		return pkcs12KeyStore(data, password)
	default:
		return jksKeyStore(data, password)
	}
}

// pemKeyStore reads ZooKeeper's PEM key store: one file holding a private
// key and its certificate chain (PEMFileLoader passes the same file as
// both). The first key block is used, as PemReader does. Besides PKCS#8,
// the PKCS#1 and SEC1 forms openssl writes by default are accepted.
func pemKeyStore(data []byte, password string) ([]tls.Certificate, error) {
	var (
		chain [][]byte
		key   crypto.Signer
	)
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		switch {
		case block.Type == "CERTIFICATE":
			chain = append(chain, block.Bytes)
		case strings.HasSuffix(block.Type, "PRIVATE KEY") && key == nil:
			k, err := pemPrivateKey(block, password)
			if err != nil {
				return nil, err
			}
			key = k
		}
	}
	if key == nil {
		return nil, fmt.Errorf("no PRIVATE KEY block: %w", ErrNoKey)
	}
	if len(chain) == 0 {
		return nil, fmt.Errorf("no CERTIFICATE block: %w", ErrNoKey)
	}
	cert, err := makeCertificate(key, chain)
	if err != nil {
		return nil, err
	}
	return []tls.Certificate{cert}, nil
}

// pemPrivateKey decodes one private key block.
func pemPrivateKey(block *pem.Block, password string) (crypto.Signer, error) {
	if _, legacy := block.Headers["DEK-Info"]; legacy {
		return nil, fmt.Errorf("OpenSSL-encrypted %s blocks (Proc-Type headers) are insecure and not read; "+
			"convert with openssl pkcs8 -topk8: %w", block.Type, ErrUnsupported)
	}
	var (
		k   any
		err error
	)
	switch block.Type {
	case "PRIVATE KEY":
		k, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		k, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		k, err = x509.ParseECPrivateKey(block.Bytes)
	case "ENCRYPTED PRIVATE KEY":
		if password == "" {
			return nil, fmt.Errorf("the private key is encrypted and no key store password is set: %w", ErrPassword)
		}
		k, err = decryptPKCS8(block.Bytes, password)
	default:
		return nil, fmt.Errorf("unknown key block %q: %w", block.Type, ErrUnsupported)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", block.Type, err)
	}
	return asSigner(k)
}

func asSigner(k any) (crypto.Signer, error) {
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("private key of type %T cannot sign: %w", k, ErrUnsupported)
	}
	return s, nil
}

// pkcs12KeyStore reads a PKCS#12 file with one private key and its chain.
func pkcs12KeyStore(data []byte, password string) ([]tls.Certificate, error) {
	k, leaf, cas, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		return nil, pkcs12Error(err)
	}
	key, err := asSigner(k)
	if err != nil {
		return nil, err
	}
	chain := [][]byte{leaf.Raw}
	for _, c := range cas {
		chain = append(chain, c.Raw)
	}
	cert, err := makeCertificate(key, chain)
	if err != nil {
		return nil, err
	}
	return []tls.Certificate{cert}, nil
}

func pkcs12Error(err error) error {
	if errors.Is(err, pkcs12.ErrIncorrectPassword) || errors.Is(err, pkcs12.ErrDecryption) {
		return fmt.Errorf("%v: %w", err, ErrPassword)
	}
	return err
}

// jksKeyStore reads every private key entry of a JKS file, in alias order.
// Like Java's KeyManagerFactory, it opens each key with the store password
// and fails if any key does not open.
func jksKeyStore(data []byte, password string) ([]tls.Certificate, error) {
	ks, pw, err := openJKS(data, password)
	if err != nil {
		return nil, err
	}
	var certs []tls.Certificate
	for _, alias := range ks.Aliases() {
		if !ks.IsPrivateKeyEntry(alias) {
			continue
		}
		cert, err := jksEntry(ks, alias, pw)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", alias, err)
		}
		certs = append(certs, cert)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("no private key entry: %w", ErrNoKey)
	}
	return certs, nil
}

func jksEntry(ks keystore.KeyStore, alias string, pw []byte) (tls.Certificate, error) {
	e, err := ks.GetPrivateKeyEntry(alias, pw)
	if err != nil {
		return tls.Certificate{}, jksError(err)
	}
	k, err := x509.ParsePKCS8PrivateKey(e.PrivateKey)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("private key: %w", err)
	}
	key, err := asSigner(k)
	if err != nil {
		return tls.Certificate{}, err
	}
	var chain [][]byte
	for _, c := range e.CertificateChain {
		chain = append(chain, c.Content)
	}
	return makeCertificate(key, chain)
}

// openJKS checks the store's integrity digest with the password.
func openJKS(data []byte, password string) (keystore.KeyStore, []byte, error) {
	pw, err := jksPassword(password)
	if err != nil {
		return keystore.KeyStore{}, nil, err
	}
	ks := keystore.New(keystore.WithOrderedAliases(), keystore.WithCaseExactAliases())
	if err := ks.Load(bytes.NewReader(data), pw); err != nil {
		return keystore.KeyStore{}, nil, jksError(err)
	}
	return ks, pw, nil
}

// jksPassword encodes the password for keystore-go, which widens each
// byte to one UTF-16 unit: that is Java's char encoding only for characters
// up to U+00FF, so others are refused rather than silently mis-keyed.
func jksPassword(password string) ([]byte, error) {
	pw := make([]byte, 0, len(password))
	for _, r := range password {
		if r > 0xFF {
			return nil, fmt.Errorf("JKS passwords with characters beyond U+00FF cannot be used: %w", ErrUnsupported)
		}
		pw = append(pw, byte(r))
	}
	return pw, nil
}

// jksError marks keystore-go's digest mismatches, its only sign of a wrong
// password, with ErrPassword.
func jksError(err error) error {
	if strings.Contains(err.Error(), "invalid digest") {
		return fmt.Errorf("%v: %w", err, ErrPassword)
	}
	return err
}

// makeCertificate builds a tls.Certificate, putting first the certificate
// whose public key matches key: stores do not always list the leaf first,
// and a certificate that does not belong to the key would fail every
// handshake.
func makeCertificate(key crypto.Signer, ders [][]byte) (tls.Certificate, error) {
	type equaler interface{ Equal(crypto.PublicKey) bool }
	pub, ok := key.Public().(equaler)
	if !ok {
		return tls.Certificate{}, fmt.Errorf("public key of type %T: %w", key.Public(), ErrUnsupported)
	}
	for i, der := range ders {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("certificate %d: %w", i+1, err)
		}
		if pub.Equal(c.PublicKey) {
			chain := append([][]byte{der}, ders[:i]...)
			chain = append(chain, ders[i+1:]...)
			return tls.Certificate{Certificate: chain, PrivateKey: key, Leaf: c}, nil
		}
	}
	return tls.Certificate{}, fmt.Errorf("no certificate matches the private key: %w", ErrNoKey)
}
