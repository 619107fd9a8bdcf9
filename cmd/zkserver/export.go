package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/migrate"
)

// errExportUsage is the error for bad export arguments.
var errExportUsage = errors.New("usage: zkserver export [-progress] zoo.cfg|DATADIR [DATALOGDIR] -to ZK_DATADIR")

// runExport is `zkserver export`: it writes the state of a stopped zkraft
// server (zoo.cfg, or DATADIR and DATALOGDIR) as the ZooKeeper snapshot
// ZK_DATADIR/version-2/snapshot.<zxid>, which Apache ZooKeeper 3.8 loads.
func runExport(args []string, out, progress io.Writer) error {
	a, err := parseMigrateArgs(args)
	if err != nil || len(a.pos) < 1 || len(a.pos) > 2 {
		return errors.Join(err, errExportUsage)
	}
	cfg, err := zkraftConfig(a.pos[0])
	if err != nil {
		return err
	}
	if len(a.pos) == 2 {
		cfg.DataLogDir = a.pos[1]
	}
	st, err := storage(cfg)
	if err != nil {
		return err
	}
	var w io.Writer
	if a.progress {
		w = progress
	}
	file, err := migrate.Export(st, datatree.Config{ExtendedTypesEnabled: cfg.ExtendedTypesEnabled}, a.to, w)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s; start Apache ZooKeeper with dataDir=%s\n", file, a.to)
	return nil
}
