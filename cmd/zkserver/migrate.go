package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/server"
)

// migrateArgs are the arguments import and export share: positional
// arguments, -to and -progress, in any order.
type migrateArgs struct {
	pos      []string
	to       string
	progress bool
}

var errNoTo = errors.New("-to is missing")

func parseMigrateArgs(args []string) (migrateArgs, error) {
	var a migrateArgs
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-progress", "--progress":
			a.progress = true
		case "-to", "--to":
			if i+1 == len(args) {
				return a, errNoTo
			}
			i++
			a.to = args[i]
		default:
			if strings.HasPrefix(args[i], "-") {
				return a, fmt.Errorf("unknown flag %s", args[i])
			}
			a.pos = append(a.pos, args[i])
		}
	}
	if a.to == "" {
		return a, errNoTo
	}
	return a, nil
}

// zkraftConfig returns the configuration of the zkraft server a path
// names: a zoo.cfg file, or a data directory (a standalone server whose
// dataDir it is, with its myid if it has one).
func zkraftConfig(path string) (server.Config, error) {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return server.ParseConfigFile(path)
	}
	return server.ParseConfig(strings.NewReader("clientPort=2181\ndataDir="+escapeProperty(path)+"\n"), "")
}

// escapeProperty escapes a value for java.util.Properties syntax.
func escapeProperty(s string) string {
	return strings.NewReplacer(`\`, `\\`).Replace(s)
}

// storage is the consensus storage a server with cfg uses.
func storage(cfg server.Config) (consensus.Storage, error) {
	if cfg.DataDir == "" {
		return consensus.Storage{}, errors.New("the zkraft configuration has no dataDir: an in-memory server keeps nothing")
	}
	return consensus.Storage{DataDir: cfg.DataDir, LogDir: cfg.DataLogDir, NoSync: !cfg.ForceSync,
		SnapshotRetain: max(cfg.SnapRetainCount, 3)}, nil
}
