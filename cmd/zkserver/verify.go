package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/zkraft/zkraft/diskcheck"
	"github.com/zkraft/zkraft/server"
)

// errVerifyUsage is the error for bad verify arguments.
var errVerifyUsage = errors.New("usage: zkserver verify DATADIR [DATALOGDIR]\n       zkserver verify zoo.cfg")

// runVerify is `zkserver verify`: it checks a stopped server's data
// directory (given directly, or as the dataDir and dataLogDir of a
// zoo.cfg), printing a line per file to w; the error says whether
// anything is damaged.
func runVerify(args []string, w io.Writer) error {
	if len(args) < 1 || len(args) > 2 {
		return errVerifyUsage
	}
	dataDir, logDir := args[0], ""
	if len(args) == 2 {
		logDir = args[1]
	}
	if fi, err := os.Stat(dataDir); err == nil && !fi.IsDir() && len(args) == 1 {
		cfg, err := server.ParseConfigFile(dataDir)
		if err != nil {
			return err
		}
		if cfg.DataDir == "" {
			return fmt.Errorf("%s has no dataDir: an in-memory server keeps nothing to verify", dataDir)
		}
		dataDir, logDir = cfg.DataDir, cfg.DataLogDir
	}
	return diskcheck.Run(w, dataDir, logDir)
}
