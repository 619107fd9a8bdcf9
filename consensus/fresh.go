package consensus

import (
	"os"
	"path/filepath"
)

// freshPaths are the parts of a durable store that did not exist before
// this open, removed again when the start fails: a start that fails must
// not leave a new, empty log behind (raft-wal preallocates a 64 MiB
// segment at once), nor directories it made.
type freshPaths struct {
	files []string // removed with everything in them
	dirs  []string // dataDir and dataLogDir: removed only if empty by then
}

// newPaths lists which of the store's paths are missing now.
func newPaths(dataDir, logDir string) freshPaths {
	var fp freshPaths
	missing := func(p string) bool { _, err := os.Lstat(p); return os.IsNotExist(err) }
	seen := map[string]bool{}
	for _, p := range []string{
		filepath.Join(logDir, walDirName), filepath.Join(logDir, logFileName),
		filepath.Join(dataDir, snapshotDirName), filepath.Join(dataDir, lockFileName), filepath.Join(logDir, lockFileName),
	} {
		if !seen[p] && missing(p) {
			fp.files = append(fp.files, p)
		}
		seen[p] = true
	}
	for _, d := range []string{logDir, dataDir} {
		if !seen[d] && missing(d) {
			fp.dirs = append(fp.dirs, d)
		}
		seen[d] = true
	}
	return fp
}

// remove deletes the fresh paths.
func (fp freshPaths) remove() {
	for _, p := range fp.files {
		os.RemoveAll(p)
	}
	for _, d := range fp.dirs {
		os.Remove(d)
	}
}
