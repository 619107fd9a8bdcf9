package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// errZooKeeperData stops a server whose data directory holds Apache
// ZooKeeper's data and none of zkraft's: starting would serve an empty
// tree beside the operator's real one without a word.
var errZooKeeperData = errors.New("holds Apache ZooKeeper's data, which zkraft does not read")

// zkraftDataNames are the entries zkraft keeps in dataDir and dataLogDir
// (docs/on-disk.md); any of them means zkraft has run here before.
var zkraftDataNames = []string{"zkraft-wal", "zkraft-raft.db", "zkraft-snapshots"}

// checkZooKeeperData refuses a dataDir or dataLogDir whose version-2/
// holds ZooKeeper snapshots or transaction logs when zkraft has no data of
// its own there yet.
func checkZooKeeperData(cfg Config) error {
	dirs := []string{cfg.DataDir}
	if cfg.DataLogDir != "" && cfg.DataLogDir != cfg.DataDir {
		dirs = append(dirs, cfg.DataLogDir)
	}
	for _, d := range dirs {
		if d == "" || hasZkraftData(d) {
			continue
		}
		if f := zooKeeperFile(filepath.Join(d, "version-2")); f != "" {
			return fmt.Errorf("server: %s %w (%s). Starting here would serve an empty tree. "+
				"Point dataDir and dataLogDir at an empty directory for zkraft, and keep ZooKeeper's data where it is "+
				"(zkraft cannot import it yet)", d, errZooKeeperData, f)
		}
	}
	return nil
}

func hasZkraftData(dir string) bool {
	for _, n := range zkraftDataNames {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// zooKeeperFile returns the path of a ZooKeeper snapshot or transaction
// log in dir (snapshot.<zxid>, log.<zxid>), or "".
func zooKeeperFile(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && (strings.HasPrefix(n, "snapshot.") || strings.HasPrefix(n, "log.")) {
			return filepath.Join(dir, n)
		}
	}
	return ""
}
