package tlsconf

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"software.sslmate.com/src/go-pkcs12"
)

// loadKey loads a key store and checks it presents kp's certificate with
// its chain.
func loadKey(t *testing.T, s Store, kp keyPair) {
	t.Helper()
	certs, err := loadKeyStore(s, readSnap(watchedFiles(Config{KeyStore: s})))
	if err != nil {
		t.Fatalf("%s: %v", s.Location, err)
	}
	if len(certs) != 1 || !certs[0].Leaf.Equal(kp.cert) {
		t.Fatalf("%s: loaded %d certificates, want the one for %s first", s.Location, len(certs), kp.cert.Subject)
	}
	if len(certs[0].Certificate) < 2 {
		t.Errorf("%s: chain has %d certificates, want leaf and CA", s.Location, len(certs[0].Certificate))
	}
}

// loadTrust loads a trust store and checks it holds exactly want.
func loadTrust(t *testing.T, s Store, want ...*x509.Certificate) {
	t.Helper()
	_, certs, err := loadTrustStore(s, readSnap(watchedFiles(Config{TrustStore: s})))
	if err != nil {
		t.Fatalf("%s: %v", s.Location, err)
	}
	if len(certs) != len(want) {
		t.Fatalf("%s: %d certificates, want %d", s.Location, len(certs), len(want))
	}
	for i := range want {
		if !certs[i].Equal(want[i]) {
			t.Errorf("%s: certificate %d is %s, want %s", s.Location, i, certs[i].Subject, want[i].Subject)
		}
	}
}

func TestPEMKeyStores(t *testing.T) {
	f := newFixture(t)
	loadKey(t, Store{Location: f.keyStore}, f.server)

	// Chain before key, leaf not first: the leaf is found by its key.
	mixed := append(pemCert(f.ca.cert), pemCert(f.server.cert)...)
	mixed = append(mixed, pemKey(t, f.server.key)...)
	loadKey(t, Store{Location: writeFile(t, f.dir, "mixed.pem", mixed)}, f.server)

	// PKCS#1 RSA key, as openssl genrsa -traditional writes.
	rsaKP := issue(t, certSpec{cn: "rsa", rsa: true}, &f.ca)
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey(t, rsaKP))})
	loadKey(t, Store{Location: writeFile(t, f.dir, "rsa.pem", append(pkcs1, pemCerts(rsaKP.cert, f.ca.cert)...))}, rsaKP)

	// Encrypted PKCS#8 opened with the key store password, also from a file.
	enc := append(encryptPKCS8(t, f.server.key, "s3cret"), pemCerts(f.server.cert, f.ca.cert)...)
	encPath := writeFile(t, f.dir, "enc.pem", enc)
	loadKey(t, Store{Location: encPath, Password: "s3cret"}, f.server)
	pwFile := writeFile(t, f.dir, "pw", []byte("s3cret\n"))
	loadKey(t, Store{Location: encPath, Password: "ignored", PasswordPath: pwFile}, f.server)

	_, err := loadKeyStore(Store{Location: encPath, Password: "wrong"}, readSnap([]string{encPath}))
	wantFileError(t, err, ErrPassword, encPath)
	_, err = loadKeyStore(Store{Location: encPath}, readSnap([]string{encPath}))
	wantFileError(t, err, ErrPassword, encPath)

	certOnly := writeFile(t, f.dir, "certonly.pem", pemCert(f.server.cert))
	_, err = loadKeyStore(Store{Location: certOnly}, readSnap([]string{certOnly}))
	wantFileError(t, err, ErrNoKey, certOnly)

	otherKey := writeFile(t, f.dir, "otherkey.pem", append(pemKey(t, f.client.key), pemCert(f.server.cert)...))
	_, err = loadKeyStore(Store{Location: otherKey}, readSnap([]string{otherKey}))
	wantFileError(t, err, ErrNoKey, otherKey)
}

func rsaKey(t *testing.T, kp keyPair) *rsaPrivateKey {
	t.Helper()
	k, ok := kp.key.(*rsaPrivateKey)
	if !ok {
		t.Fatalf("key is %T", kp.key)
	}
	return k
}

func wantFileError(t *testing.T, err, want error, path string) {
	t.Helper()
	if !errors.Is(err, want) || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v; want %v naming %s", err, want, path)
	}
}

func TestOpenSSLEncryptedPEMKey(t *testing.T) {
	needTool(t, "openssl")
	f := newFixture(t)
	plain := writeFile(t, f.dir, "plain.key", pemKey(t, f.server.key))
	encKey := filepath.Join(f.dir, "enc.key")
	run(t, "openssl", "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", plain, "-out", encKey, "-passout", "pass:pa55")
	b := readTestFile(t, encKey)
	store := writeFile(t, f.dir, "openssl-enc.pem", append(b, pemCerts(f.server.cert, f.ca.cert)...))
	loadKey(t, Store{Location: store, Password: "pa55"}, f.server)
}

func TestPKCS12Stores(t *testing.T) {
	f := newFixture(t)
	p12, err := pkcs12.Modern.Encode(f.server.key, f.server.cert, []*x509.Certificate{f.ca.cert}, "changeit")
	if err != nil {
		t.Fatal(err)
	}
	ks := writeFile(t, f.dir, "server.p12", p12)
	loadKey(t, Store{Location: ks, Password: "changeit"}, f.server)
	loadKey(t, Store{Location: writeFile(t, f.dir, "server.pfx", p12), Password: "changeit"}, f.server)
	loadKey(t, Store{Location: writeFile(t, f.dir, "server.bin", p12), Password: "changeit", Type: "pkcs12"}, f.server)
	_, err = loadKeyStore(Store{Location: ks, Password: "nope"}, readSnap([]string{ks}))
	wantFileError(t, err, ErrPassword, ks)

	trust, err := pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{f.ca.cert, f.otherCA.cert}, "changeit")
	if err != nil {
		t.Fatal(err)
	}
	ts := writeFile(t, f.dir, "trust.p12", trust)
	loadTrust(t, Store{Location: ts, Password: "changeit"}, f.ca.cert, f.otherCA.cert)
	_, _, err = loadTrustStore(Store{Location: ts, Password: "nope"}, readSnap([]string{ts}))
	wantFileError(t, err, ErrPassword, ts)
}

func TestOpenSSLPKCS12KeyStore(t *testing.T) {
	f := newFixture(t)
	ks := opensslPKCS12(t, f.dir, "openssl", f.server, f.ca.cert, "changeit")
	loadKey(t, Store{Location: ks, Password: "changeit"}, f.server)
	_, err := loadKeyStore(Store{Location: ks, Password: "wrong"}, readSnap([]string{ks}))
	wantFileError(t, err, ErrPassword, ks)

	// openssl's certificate-only PKCS#12 lacks Java's trust mark: refused
	// with a hint rather than trusted.
	ca := writeFile(t, f.dir, "ca-only.pem", pemCert(f.ca.cert))
	ts := filepath.Join(f.dir, "openssl-trust.p12")
	run(t, "openssl", "pkcs12", "-export", "-nokeys", "-in", ca, "-out", ts, "-passout", "pass:changeit")
	_, _, err = loadTrustStore(Store{Location: ts, Password: "changeit"}, readSnap([]string{ts}))
	if err == nil || !strings.Contains(err.Error(), "keytool -importcert") || !strings.Contains(err.Error(), ts) {
		t.Errorf("openssl trust store: err = %v; want a hint naming the file", err)
	}
}

func TestKeytoolStores(t *testing.T) {
	f := newFixture(t)
	src := opensslPKCS12(t, f.dir, "src", f.server, f.ca.cert, "changeit")

	jks := filepath.Join(f.dir, "server.jks")
	keytoolImport(t, src, "changeit", jks, "JKS", "storepw")
	if b := readTestFile(t, jks); !strings.HasPrefix(string(b), string(jksMagic)) {
		t.Fatal("keytool -deststoretype JKS did not write a JKS file")
	}
	loadKey(t, Store{Location: jks, Password: "storepw"}, f.server)
	_, err := loadKeyStore(Store{Location: jks, Password: "wrong"}, readSnap([]string{jks}))
	wantFileError(t, err, ErrPassword, jks)

	// keytool's default type is PKCS12 even for a file named *.jks; Java
	// reads it as JKS anyway, and so must this.
	p12AsJKS := filepath.Join(f.dir, "default.jks")
	keytoolImport(t, src, "changeit", p12AsJKS, "", "storepw")
	if b := readTestFile(t, p12AsJKS); b[0] != 0x30 {
		t.Fatalf("keytool's default store type is not PKCS12 here (first byte %#x)", b[0])
	}
	loadKey(t, Store{Location: p12AsJKS, Password: "storepw"}, f.server)

	trustJKS := keytoolTrust(t, f.dir, "trust.jks", "JKS", "trustpw", f.ca.cert, f.otherCA.cert)
	loadTrust(t, Store{Location: trustJKS, Password: "trustpw"}, f.ca.cert, f.otherCA.cert)
	_, _, err = loadTrustStore(Store{Location: trustJKS, Password: "bad"}, readSnap([]string{trustJKS}))
	wantFileError(t, err, ErrPassword, trustJKS)

	trustP12 := keytoolTrust(t, f.dir, "trust.p12", "PKCS12", "trustpw", f.ca.cert)
	loadTrust(t, Store{Location: trustP12, Password: "trustpw"}, f.ca.cert)

	// A key store has no trusted entries, so it is no trust store.
	_, _, err = loadTrustStore(Store{Location: jks, Password: "storepw"}, readSnap([]string{jks}))
	wantFileError(t, err, ErrNoTrustedCerts, jks)
}

func TestPEMTrustStore(t *testing.T) {
	f := newFixture(t)
	both := writeFile(t, f.dir, "both.pem", pemCerts(f.ca.cert, f.otherCA.cert))
	loadTrust(t, Store{Location: both}, f.ca.cert, f.otherCA.cert)
	// A PEM key store doubles as a trust store for its chain.
	loadTrust(t, Store{Location: f.keyStore}, f.server.cert, f.ca.cert)
	empty := writeFile(t, f.dir, "empty.pem", nil)
	_, _, err := loadTrustStore(Store{Location: empty}, readSnap([]string{empty}))
	wantFileError(t, err, ErrNoTrustedCerts, empty)
	missing := filepath.Join(f.dir, "missing.pem")
	_, _, err = loadTrustStore(Store{Location: missing}, readSnap([]string{missing}))
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing trust store: %v", err)
	}
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	f := newFixture(t)
	garbage := writeFile(t, f.dir, "garbage.jks", []byte("not a key store"))
	_, err := Load(Config{KeyStore: Store{Location: garbage}, PollInterval: -1}, nil)
	if !errors.Is(err, ErrBadValue) || !strings.Contains(err.Error(), "key store "+garbage) {
		t.Errorf("err = %v", err)
	}
	jceks := writeFile(t, f.dir, "x.jks", []byte{0xCE, 0xCE, 0xCE, 0xCE, 0, 0, 0, 2})
	_, err = Load(Config{TrustStore: Store{Location: jceks}, PollInterval: -1}, nil)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "trust store "+jceks) {
		t.Errorf("err = %v", err)
	}
}
