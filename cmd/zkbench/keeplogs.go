package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// keepLogs copies every zkserver.log under a target's directory into into,
// as <name>-<attempt>-<server>.log, before the directory is removed: a run
// that fails halfway (a fill that lost its connections) leaves the servers'
// side of it. It does nothing when into is "". Errors are returned joined
// into one; the caller reports them and goes on removing.
func keepLogs(into, dir, name string) error {
	if into == "" {
		return nil
	}
	if err := os.MkdirAll(into, 0o755); err != nil {
		return err
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "zkserver.log" {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		dst := filepath.Join(into, name+"-"+strings.ReplaceAll(rel, string(filepath.Separator), "-")+".log")
		// A log kept by an earlier run under the same name is replaced.
		if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return copyFile(path, dst, 0o644)
	})
}
