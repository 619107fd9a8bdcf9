package tlsconf

import (
	"crypto/sha256"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"
)

// maxStoreSize bounds how much of a file is read: stores are a few
// kilobytes, and the watcher reads them every poll, so a path pointing at a
// huge file by mistake must not cost much.
const maxStoreSize = 4 << 20

// fileSnap is the contents of every file a Config names, read together
// before anything is parsed, so the fingerprints it yields describe exactly
// the bytes that were loaded.
type fileSnap struct {
	data map[string][]byte
	errs map[string]error
}

// watchedFiles lists the files a Config depends on: both stores and their
// password files (a rotation may change the password with the store).
func watchedFiles(cfg Config) []string {
	var files []string
	for _, p := range []string{cfg.KeyStore.Location, cfg.KeyStore.PasswordPath,
		cfg.TrustStore.Location, cfg.TrustStore.PasswordPath} {
		if p != "" {
			files = append(files, p)
		}
	}
	return files
}

func readSnap(paths []string) fileSnap {
	s := fileSnap{data: map[string][]byte{}, errs: map[string]error{}}
	for _, p := range paths {
		if b, err := readLimited(p); err != nil {
			s.errs[p] = err
		} else {
			s.data[p] = b
		}
	}
	return s
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxStoreSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxStoreSize {
		return nil, fmt.Errorf("%s is larger than %d bytes: %w", path, maxStoreSize, ErrBadValue)
	}
	return b, nil
}

func (s fileSnap) get(path string) ([]byte, error) {
	if err, ok := s.errs[path]; ok {
		return nil, err
	}
	return s.data[path], nil
}

// fingerprints hashes each file's contents, or its read error, so that a
// file going missing or coming back counts as a change too.
func (s fileSnap) fingerprints() map[string][32]byte {
	fp := map[string][32]byte{}
	for p, b := range s.data {
		fp[p] = sha256.Sum256(b)
	}
	for p, err := range s.errs {
		fp[p] = sha256.Sum256([]byte("error: " + err.Error()))
	}
	return fp
}

func sameFingerprints(a, b map[string][32]byte) bool { return maps.Equal(a, b) }

// storePassword returns the store's password, from PasswordPath when set.
// Like ZooKeeper's SecretUtils.readSecret, one trailing line separator is
// dropped and nothing else, so passwords may end in spaces.
func storePassword(s Store, snap fileSnap) (string, error) {
	if s.PasswordPath == "" {
		return s.Password, nil
	}
	b, err := snap.get(s.PasswordPath)
	if err != nil {
		return "", fmt.Errorf("password file: %w", err)
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}
