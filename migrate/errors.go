package migrate

import (
	"errors"
	"fmt"
)

var (
	// ErrCorrupt is wrapped by every error about a damaged or truncated
	// ZooKeeper file.
	ErrCorrupt = errors.New("corrupt ZooKeeper data")
	// ErrFormat is wrapped by errors about files in a format this package
	// does not read (another magic, version or compression).
	ErrFormat = errors.New("unsupported ZooKeeper file format")
	// ErrNoSnapshot is returned when a ZooKeeper data directory holds no
	// snapshot to start from.
	ErrNoSnapshot = errors.New("no ZooKeeper snapshot")
	// ErrDigest is returned when the replayed tree's digest differs from
	// the one ZooKeeper logged with its last transaction.
	ErrDigest = errors.New("replayed tree differs from ZooKeeper's digest")
	// ErrTargetNotEmpty is returned by Export when the ZooKeeper data
	// directory already holds snapshots or logs.
	ErrTargetNotEmpty = errors.New("ZooKeeper data directory is not empty")
	// ErrTorn is wrapped by errors about a log entry that cannot be read
	// to its end (cut short, or without its end mark) where a crash does
	// not leave one: with a complete entry after it, or ending an older
	// log that the next log does not go on from. ZooKeeper would skip
	// the rest of the file without a word. It wraps ErrCorrupt.
	ErrTorn = fmt.Errorf("log entry cut short where transactions follow: %w", ErrCorrupt)
)

// FileError locates a problem in a file: what is wrong, and at which
// byte offset (-1 when the problem is the file as a whole).
type FileError struct {
	File   string
	Offset int64
	What   string
	Kind   error // ErrCorrupt, ErrTorn or ErrFormat
}

func (e *FileError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%s: %s: %v", e.File, e.What, e.Kind)
	}
	return fmt.Sprintf("%s at offset %d: %s: %v", e.File, e.Offset, e.What, e.Kind)
}

// Unwrap returns ErrCorrupt, ErrTorn or ErrFormat.
func (e *FileError) Unwrap() error { return e.Kind }

func corrupt(file string, off int64, format string, args ...any) error {
	return &FileError{File: file, Offset: off, What: fmt.Sprintf(format, args...), Kind: ErrCorrupt}
}

func badFormat(file string, off int64, format string, args ...any) error {
	return &FileError{File: file, Offset: off, What: fmt.Sprintf(format, args...), Kind: ErrFormat}
}

func errPath(path string) error { return fmt.Errorf("path %q is not absolute", path) }

func errParent(path, parent string) error {
	return fmt.Errorf("node %s comes before its parent %q", path, parent)
}
