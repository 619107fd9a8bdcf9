package tlsconf

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// storeType is a key or trust store file format.
type storeType int

const (
	typePEM storeType = iota + 1
	typePKCS12
	typeJKS
)

func (t storeType) String() string {
	switch t {
	case typePEM:
		return "PEM"
	case typePKCS12:
		return "PKCS12"
	case typeJKS:
		return "JKS"
	}
	return "unknown"
}

// storeTypeOf follows KeyStoreFileType.fromPropertyValueOrFileName: an
// explicit type wins (any case); otherwise the file extension decides.
// ZooKeeper knows .jks, .pem, .p12 and .bcfks; .pfx is accepted here as the
// other common PKCS#12 extension.
func storeTypeOf(s Store) (storeType, error) {
	if s.Type != "" {
		return parseStoreType(s.Type)
	}
	switch strings.ToLower(filepath.Ext(s.Location)) {
	case ".pem":
		return typePEM, nil
	case ".p12", ".pfx":
		return typePKCS12, nil
	case ".jks":
		return typeJKS, nil
	case ".bcfks":
		return 0, errBCFKS()
	}
	return 0, fmt.Errorf("cannot tell the store type of %q from its name (want .jks, .pem, .p12 or .pfx); "+
		"set the type key: %w", s.Location, ErrBadValue)
}

func parseStoreType(v string) (storeType, error) {
	switch strings.ToUpper(v) {
	case "PEM":
		return typePEM, nil
	case "PKCS12":
		return typePKCS12, nil
	case "JKS":
		return typeJKS, nil
	case "BCFKS":
		return 0, errBCFKS()
	}
	return 0, fmt.Errorf("store type %q: want JKS, PEM or PKCS12: %w", v, ErrBadValue)
}

func errBCFKS() error {
	return fmt.Errorf("BCFKS (Bouncy Castle FIPS) stores cannot be read; convert the store to PKCS12: %w", ErrUnsupported)
}

// jksMagic opens every JKS file; JCEKS files open with 0xCECECECE instead.
var (
	jksMagic   = []byte{0xFE, 0xED, 0xFE, 0xED}
	jceksMagic = []byte{0xCE, 0xCE, 0xCE, 0xCE}
)

// sniffBinary decides between JKS and PKCS#12 by content. Since Java 9 the
// JDK opens a store of either format whichever of the two types is named
// (keystore.type.compat), and keytool writes PKCS#12 by default even to a
// file called *.jks, so the declared type alone would reject stores that
// ZooKeeper reads.
func sniffBinary(declared storeType, data []byte) (storeType, error) {
	switch {
	case bytes.HasPrefix(data, jksMagic):
		return typeJKS, nil
	case bytes.HasPrefix(data, jceksMagic):
		return 0, fmt.Errorf("JCEKS stores cannot be read; convert the store to PKCS12: %w", ErrUnsupported)
	case len(data) > 0 && data[0] == 0x30: // DER SEQUENCE: a PKCS#12 PFX
		return typePKCS12, nil
	}
	return 0, fmt.Errorf("not a %s file (neither JKS nor PKCS#12 content): %w", declared, ErrBadValue)
}
