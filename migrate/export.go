package migrate

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
)

// tmpName is the file an export writes before renaming it: a name
// ZooKeeper's file listing ignores (no zxid after a "snapshot." prefix).
const tmpName = "zkraft-export.tmp"

// Export writes the state of a stopped zkraft server's data directory
// (its newest snapshot and the log after it, see consensus.ReadState) as
// the ZooKeeper snapshot zkDataDir/version-2/snapshot.<last zxid>, which
// ZooKeeper 3.8 loads: every znode with its data, ACL and Stat, the
// sessions with their timeouts, and a zxid digest ZooKeeper checks when it
// loads the file. It refuses a zkDataDir whose version-2/ already holds
// snapshots or logs, and returns the file written.
func Export(from consensus.Storage, cfg datatree.Config, zkDataDir string, w io.Writer) (string, error) {
	dir := filepath.Join(zkDataDir, "version-2")
	for _, prefix := range []string{"snapshot", "log"} {
		files, err := listFiles(dir, prefix)
		if err != nil && !os.IsNotExist(err) {
			return "", err
		}
		if len(files) > 0 {
			return "", fmt.Errorf("%w: %s holds %s", ErrTargetNotEmpty, dir, filepath.Base(files[0].path))
		}
	}
	prog := newProgress(w)
	prog.say("reading zkraft's data in %s", from.DataDir)
	st, err := consensus.ReadState(from, cfg)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	final := filepath.Join(dir, "snapshot."+strconv.FormatInt(st.LastZxid, 16))
	tmp := filepath.Join(dir, tmpName)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	prog.begin("writing " + filepath.Base(final) + ": znodes")
	err = writeSnapshot(f, st.Tree, st.Sessions, st.LastZxid, prog)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return final, syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
