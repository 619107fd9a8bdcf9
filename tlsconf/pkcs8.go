package tlsconf

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"hash"
)

// This file opens "ENCRYPTED PRIVATE KEY" PEM blocks (PKCS#8
// EncryptedPrivateKeyInfo), which ZooKeeper's PemReader decrypts with the
// key store password. The standard library has no such decoder. Only PBES2
// with PBKDF2 is handled: it is what openssl pkcs8 -topk8 and Java's
// keytool produce by default; the older PBES1 schemes and scrypt are
// refused by name.

var (
	oidPBES2  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidScrypt = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 11591, 4, 11}

	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA224 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA384 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}

	oidAES128CBC = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3   = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)

// maxPBKDF2Iterations bounds the work a damaged or hostile file can ask
// for; real files use thousands to a few million.
const maxPBKDF2Iterations = 1 << 24

type encryptedPrivateKeyInfo struct {
	Algorithm     pkix.AlgorithmIdentifier
	EncryptedData []byte
}

type pbes2Params struct {
	KeyDerivationFunc pkix.AlgorithmIdentifier
	EncryptionScheme  pkix.AlgorithmIdentifier
}

type pbkdf2Params struct {
	Salt       []byte
	Iterations int
	KeyLength  int                      `asn1:"optional"`
	PRF        pkix.AlgorithmIdentifier `asn1:"optional"`
}

// decryptPKCS8 returns the private key inside an EncryptedPrivateKeyInfo.
func decryptPKCS8(der []byte, password string) (any, error) {
	var info encryptedPrivateKeyInfo
	if err := unmarshalAll(der, &info); err != nil {
		return nil, fmt.Errorf("encrypted private key: %w", err)
	}
	if !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("encrypted private key uses %v, only PBES2 is supported "+
			"(re-encrypt with openssl pkcs8 -topk8 -v2 aes-256-cbc): %w", info.Algorithm.Algorithm, ErrUnsupported)
	}
	var params pbes2Params
	if err := unmarshalAll(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, fmt.Errorf("PBES2 parameters: %w", err)
	}
	block, iv, keyLen, err := pbes2Cipher(params.EncryptionScheme)
	if err != nil {
		return nil, err
	}
	key, err := pbes2Key(params.KeyDerivationFunc, password, keyLen)
	if err != nil {
		return nil, err
	}
	plain, err := cbcDecrypt(block, key, iv, info.EncryptedData)
	if err != nil {
		return nil, err
	}
	pk, err := x509.ParsePKCS8PrivateKey(plain)
	if err != nil {
		// Padding that happens to look valid under a wrong key leaves
		// garbage here; a wrong password is by far the likelier cause.
		return nil, fmt.Errorf("decrypted key does not parse: %w", ErrPassword)
	}
	return pk, nil
}

// pbes2Cipher returns the block cipher constructor, IV and key length of a
// PBES2 encryption scheme.
func pbes2Cipher(alg pkix.AlgorithmIdentifier) (func([]byte) (cipher.Block, error), []byte, int, error) {
	var iv []byte
	if err := unmarshalAll(alg.Parameters.FullBytes, &iv); err != nil {
		return nil, nil, 0, fmt.Errorf("PBES2 cipher IV: %w", err)
	}
	switch {
	case alg.Algorithm.Equal(oidAES128CBC):
		return aes.NewCipher, iv, 16, nil
	case alg.Algorithm.Equal(oidAES192CBC):
		return aes.NewCipher, iv, 24, nil
	case alg.Algorithm.Equal(oidAES256CBC):
		return aes.NewCipher, iv, 32, nil
	case alg.Algorithm.Equal(oidDESEDE3):
		return des.NewTripleDESCipher, iv, 24, nil
	}
	return nil, nil, 0, fmt.Errorf("PBES2 cipher %v (want AES-CBC or DES-EDE3-CBC): %w", alg.Algorithm, ErrUnsupported)
}

// pbes2Key derives the content-encryption key with PBKDF2.
func pbes2Key(kdf pkix.AlgorithmIdentifier, password string, keyLen int) ([]byte, error) {
	if kdf.Algorithm.Equal(oidScrypt) {
		return nil, fmt.Errorf("scrypt-protected keys cannot be read; use PBKDF2: %w", ErrUnsupported)
	}
	if !kdf.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("PBES2 key derivation %v (want PBKDF2): %w", kdf.Algorithm, ErrUnsupported)
	}
	var p pbkdf2Params
	if err := unmarshalAll(kdf.Parameters.FullBytes, &p); err != nil {
		return nil, fmt.Errorf("PBKDF2 parameters: %w", err)
	}
	if p.Iterations < 1 || p.Iterations > maxPBKDF2Iterations {
		return nil, fmt.Errorf("PBKDF2 iteration count %d out of range: %w", p.Iterations, ErrBadValue)
	}
	if p.KeyLength != 0 && p.KeyLength != keyLen {
		return nil, fmt.Errorf("PBKDF2 key length %d does not fit the cipher: %w", p.KeyLength, ErrBadValue)
	}
	prf, err := pbkdf2PRF(p.PRF.Algorithm)
	if err != nil {
		return nil, err
	}
	return pbkdf2.Key(prf, password, p.Salt, p.Iterations, keyLen)
}

func pbkdf2PRF(oid asn1.ObjectIdentifier) (func() hash.Hash, error) {
	switch {
	case len(oid) == 0, oid.Equal(oidHMACSHA1): // absent means the default, HMAC-SHA1
		return sha1.New, nil
	case oid.Equal(oidHMACSHA224):
		return sha256.New224, nil
	case oid.Equal(oidHMACSHA256):
		return sha256.New, nil
	case oid.Equal(oidHMACSHA384):
		return sha512.New384, nil
	case oid.Equal(oidHMACSHA512):
		return sha512.New, nil
	}
	return nil, fmt.Errorf("PBKDF2 PRF %v: %w", oid, ErrUnsupported)
}

// cbcDecrypt decrypts and strips PKCS#7 padding; bad padding means the
// key, so the password, was wrong.
func cbcDecrypt(newBlock func([]byte) (cipher.Block, error), key, iv, data []byte) ([]byte, error) {
	block, err := newBlock(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	if len(iv) != bs || len(data) == 0 || len(data)%bs != 0 {
		return nil, fmt.Errorf("encrypted private key has a malformed IV or length: %w", ErrBadValue)
	}
	plain := make([]byte, len(data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, data)
	n := int(plain[len(plain)-1])
	if n == 0 || n > bs {
		return nil, fmt.Errorf("decrypting the private key: %w", ErrPassword)
	}
	for _, b := range plain[len(plain)-n:] {
		if int(b) != n {
			return nil, fmt.Errorf("decrypting the private key: %w", ErrPassword)
		}
	}
	return plain[:len(plain)-n], nil
}

// unmarshalAll is asn1.Unmarshal that also rejects trailing bytes.
func unmarshalAll(der []byte, v any) error {
	rest, err := asn1.Unmarshal(der, v)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("%d trailing bytes: %w", len(rest), ErrBadValue)
	}
	return nil
}
