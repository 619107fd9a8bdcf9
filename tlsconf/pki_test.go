package tlsconf

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// This file builds the test PKI: a CA, certificates it issues, and the
// stores holding them, in each format.

type keyPair struct {
	cert *x509.Certificate
	key  crypto.Signer
}

var serials atomic.Int64

type certSpec struct {
	cn     string
	dns    []string
	ips    []net.IP
	isCA   bool
	rsa    bool
	usages []x509.ExtKeyUsage
}

// serverSpec names 127.0.0.1 and localhost and may act as client and
// server, as a quorum member's certificate does.
func serverSpec(cn string) certSpec {
	return certSpec{cn: cn, dns: []string{"localhost"}, ips: []net.IP{net.IPv4(127, 0, 0, 1)},
		usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
}

func clientSpec(cn string) certSpec {
	return certSpec{cn: cn, usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
}

func newKey(t *testing.T, useRSA bool) crypto.Signer {
	t.Helper()
	var (
		k   crypto.Signer
		err error
	)
	if useRSA {
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	} else {
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// issue makes a certificate for spec signed by parent (self-signed when
// parent is nil).
func issue(t *testing.T, spec certSpec, parent *keyPair) keyPair {
	t.Helper()
	key := newKey(t, spec.rsa)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serials.Add(1)),
		Subject:               pkix.Name{CommonName: spec.cn, Organization: []string{"zkraft test"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		DNSNames:              spec.dns,
		IPAddresses:           spec.ips,
		ExtKeyUsage:           spec.usages,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  spec.isCA,
	}
	if spec.isCA {
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	}
	signer, signerCert := key, tmpl
	if parent != nil {
		signer, signerCert = parent.key, parent.cert
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signerCert, key.Public(), signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return keyPair{cert: cert, key: key}
}

func newCA(t *testing.T, name string) keyPair {
	return issue(t, certSpec{cn: name, isCA: true}, nil)
}

func pemCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

func pemKey(t *testing.T, k crypto.Signer) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// pemKeyStoreBytes lays out a ZooKeeper PEM key store: key, then chain.
func pemKeyStoreBytes(t *testing.T, kp keyPair, chain ...*x509.Certificate) []byte {
	out := pemKey(t, kp.key)
	out = append(out, pemCert(kp.cert)...)
	for _, c := range chain {
		out = append(out, pemCert(c)...)
	}
	return out
}

func pemCerts(certs ...*x509.Certificate) []byte {
	var out []byte
	for _, c := range certs {
		out = append(out, pemCert(c)...)
	}
	return out
}

// encryptPKCS8 writes an ENCRYPTED PRIVATE KEY block as openssl pkcs8
// -topk8 -v2 aes-256-cbc would (PBKDF2-HMAC-SHA256), so encrypted PEM key
// stores are covered without openssl.
func encryptPKCS8(t *testing.T, k crypto.Signer, password string) []byte {
	t.Helper()
	plain, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	salt, iv := make([]byte, 16), make([]byte, 16)
	rand.Read(salt)
	rand.Read(iv)
	key, err := pbkdf2.Key(sha256.New, password, salt, 2048, 32)
	if err != nil {
		t.Fatal(err)
	}
	pad := 16 - len(plain)%16
	for range pad {
		plain = append(plain, byte(pad))
	}
	block, _ := aes.NewCipher(key)
	enc := make([]byte, len(plain))
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(enc, plain)
	kdf := pbkdf2Params{Salt: salt, Iterations: 2048, PRF: pkix.AlgorithmIdentifier{Algorithm: oidHMACSHA256, Parameters: asn1.NullRawValue}}
	params := pbes2Params{
		KeyDerivationFunc: pkix.AlgorithmIdentifier{Algorithm: oidPBKDF2, Parameters: rawValue(t, kdf)},
		EncryptionScheme:  pkix.AlgorithmIdentifier{Algorithm: oidAES256CBC, Parameters: rawValue(t, iv)},
	}
	info := encryptedPrivateKeyInfo{
		Algorithm:     pkix.AlgorithmIdentifier{Algorithm: oidPBES2, Parameters: rawValue(t, params)},
		EncryptedData: enc,
	}
	der, err := asn1.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: der})
}

func rawValue(t *testing.T, v any) asn1.RawValue {
	t.Helper()
	der, err := asn1.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return asn1.RawValue{FullBytes: der}
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// replaceFile swaps data in under path with a rename, as a careful
// rotation tool does.
func replaceFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// needTool skips the test when name is not on PATH.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not on PATH; skipping the stores it builds (install a JDK for keytool, openssl for openssl)", name)
	}
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// opensslPKCS12 builds a key store with openssl pkcs12 -export (OpenSSL 3
// defaults: AES-256-CBC, PBKDF2, SHA-256 MAC).
func opensslPKCS12(t *testing.T, dir, name string, kp keyPair, ca *x509.Certificate, password string) string {
	t.Helper()
	needTool(t, "openssl")
	key := writeFile(t, dir, name+".key.pem", pemKey(t, kp.key))
	crt := writeFile(t, dir, name+".crt.pem", pemCert(kp.cert))
	cas := writeFile(t, dir, name+".ca.pem", pemCert(ca))
	out := filepath.Join(dir, name+".p12")
	run(t, "openssl", "pkcs12", "-export", "-inkey", key, "-in", crt, "-certfile", cas,
		"-name", name, "-out", out, "-passout", "pass:"+password)
	return out
}

// keytoolImport converts a PKCS#12 key store with keytool; an empty
// storetype leaves keytool's default (PKCS12 since Java 9).
func keytoolImport(t *testing.T, src, srcPass, dst, dstType, dstPass string) {
	t.Helper()
	needTool(t, "keytool")
	args := []string{"-importkeystore", "-noprompt", "-srckeystore", src, "-srcstoretype", "PKCS12",
		"-srcstorepass", srcPass, "-destkeystore", dst, "-deststorepass", dstPass}
	if dstType != "" {
		args = append(args, "-deststoretype", dstType)
	}
	if dstType == "JKS" {
		args = append(args, "-destkeypass", dstPass)
	}
	run(t, "keytool", args...)
}

// keytoolTrust builds a trust store of storeType with keytool -importcert.
func keytoolTrust(t *testing.T, dir, name, storeType, password string, certs ...*x509.Certificate) string {
	t.Helper()
	needTool(t, "keytool")
	out := filepath.Join(dir, name)
	for i, c := range certs {
		f := writeFile(t, dir, name+".in.pem", pemCert(c))
		run(t, "keytool", "-importcert", "-noprompt", "-alias", "ca"+string(rune('a'+i)), "-file", f,
			"-keystore", out, "-storetype", storeType, "-storepass", password)
	}
	return out
}

type rsaPrivateKey = rsa.PrivateKey

func readTestFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
