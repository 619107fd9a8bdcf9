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
var errZooKeeperData = errors.New("holds Apache ZooKeeper's data, which zkraft serves only once it is imported")

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
				"Import it first, with this server stopped: %s "+
				"(in an ensemble, run it on every server before starting any; docs/migration.md), "+
				"or point dataDir and dataLogDir at an empty directory to start afresh", d, errZooKeeperData, f, importCommand(cfg))
		}
	}
	return nil
}

// importCommand is the zkserver import command line that seeds cfg's
// directories from the ZooKeeper data in them.
func importCommand(cfg Config) string {
	cmd := "zkserver import " + cfg.DataDir
	if cfg.DataLogDir != "" && cfg.DataLogDir != cfg.DataDir {
		cmd += " " + cfg.DataLogDir
	}
	to := cfg.File
	if to == "" {
		to = "ZOO_CFG"
		if len(cfg.Servers) <= 1 && (cfg.DataLogDir == "" || cfg.DataLogDir == cfg.DataDir) {
			to = cfg.DataDir
		}
	}
	return cmd + " -to " + to
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
