package consensus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockFileName is the lock a running server holds in its dataDir (and in
// its dataLogDir when that differs), with the holder's process id inside.
const lockFileName = "zkraft.lock"

// ErrDirInUse is returned by Start when another server (this process or
// another) holds the data directory.
var ErrDirInUse = errors.New("data directory in use")

// dirLock is an exclusive advisory lock (flock) on a directory's lock file.
// The kernel releases it when the holder exits, however it exits, so a
// crash never leaves a stale lock behind; the file itself stays.
type dirLock struct{ f *os.File }

// lockDir takes dir's lock without waiting: if another open file holds it
// (another process, or another server in this one), it fails at once with
// ErrDirInUse, naming the directory and the holder's process id.
func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("consensus: lock %s: %w", dir, err)
	}
	if busy, err := tryLock(f); err != nil || busy {
		holder := readHolder(f)
		f.Close()
		if busy {
			return nil, fmt.Errorf("consensus: %w: %s is locked by process %s (%s); stop that server or give this one another dataDir",
				ErrDirInUse, dir, holder, path)
		}
		return nil, fmt.Errorf("consensus: lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dirLock{f: f}, nil
}

// readHolder returns the process id written in a held lock file, or
// "unknown" when it has none yet.
func readHolder(f *os.File) string {
	var buf [32]byte
	n, _ := f.ReadAt(buf[:], 0)
	if pid := strings.TrimSpace(string(buf[:n])); pid != "" {
		return pid
	}
	return "unknown"
}

// unlock releases the lock; the file stays, as an unlocked file means nothing.
func (l *dirLock) unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the only descriptor releases the flock
	l.f = nil
	return err
}

// dirLocks are the locks of a dataDir and a distinct dataLogDir.
type dirLocks []*dirLock

// lockDirs locks each distinct directory, or none.
func lockDirs(dirs ...string) (dirLocks, error) {
	var locks dirLocks
	seen := map[string]bool{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			abs = d
		}
		if seen[abs] {
			continue
		}
		seen[abs] = true
		l, err := lockDir(d)
		if err != nil {
			locks.unlock()
			return nil, err
		}
		locks = append(locks, l)
	}
	return locks, nil
}

func (ls dirLocks) unlock() error {
	var errs []error
	for _, l := range ls {
		errs = append(errs, l.unlock())
	}
	return errors.Join(errs...)
}
