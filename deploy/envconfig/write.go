package envconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// ConfigPath is the zoo.cfg's path, $ZOO_CONF_DIR/zoo.cfg.
func (s Settings) ConfigPath() string { return filepath.Join(s.ConfDir, "zoo.cfg") }

// MyIDPath is $ZOO_DATA_DIR/myid.
func (s Settings) MyIDPath() string { return filepath.Join(s.DataDir, "myid") }

// HasConfig reports whether a zoo.cfg is already there (mounted, or
// written by an earlier start of the container).
func (s Settings) HasConfig() bool {
	_, err := os.Stat(s.ConfigPath())
	return err == nil
}

// Write creates the directories, then writes the zoo.cfg with servers
// unless one exists, and myid unless it exists, as the entrypoint does.
// It reports whether it wrote the zoo.cfg.
func (s Settings) Write(servers []string) (wrote bool, err error) {
	for _, d := range []string{s.ConfDir, s.DataDir, s.DataLogDir} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return false, err
		}
	}
	wrote, err = writeNew(s.ConfigPath(), []byte(s.ZooCfg(servers)))
	if err != nil {
		return wrote, err
	}
	_, err = writeNew(s.MyIDPath(), []byte(strconv.FormatInt(s.MyID, 10)+"\n"))
	return wrote, err
}

// writeNew writes a file that does not exist yet; an existing one is
// left alone.
func writeNew(path string, data []byte) (bool, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, nil
}
