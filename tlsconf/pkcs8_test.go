package tlsconf

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"testing"
)

func TestDecryptPKCS8Refusals(t *testing.T) {
	f := newFixture(t)
	block, _ := pem.Decode(encryptPKCS8(t, f.server.key, "pw"))
	if _, err := decryptPKCS8(block.Bytes, "pw"); err != nil {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := decryptPKCS8(block.Bytes, "wrong"); !errors.Is(err, ErrPassword) {
		t.Errorf("wrong password: %v", err)
	}

	// PBES1 (pbeWithSHAAnd3-KeyTripleDES-CBC) is refused by name.
	var info encryptedPrivateKeyInfo
	if _, err := asn1.Unmarshal(block.Bytes, &info); err != nil {
		t.Fatal(err)
	}
	info.Algorithm = pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 1, 3}}
	der, _ := asn1.Marshal(info)
	if _, err := decryptPKCS8(der, "pw"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("PBES1: %v", err)
	}
	if _, err := decryptPKCS8([]byte{0x30, 0x03, 0x02, 0x01}, "pw"); err == nil {
		t.Error("truncated DER accepted")
	}
}

func TestLegacyEncryptedPEMRefused(t *testing.T) {
	block := &pem.Block{Type: "RSA PRIVATE KEY", Headers: map[string]string{
		"Proc-Type": "4,ENCRYPTED", "DEK-Info": "AES-256-CBC,00112233445566778899AABBCCDDEEFF"}, Bytes: []byte{1}}
	if _, err := pemPrivateKey(block, "pw"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("err = %v, want ErrUnsupported", err)
	}
}
