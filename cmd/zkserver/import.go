package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/migrate"
)

// errImportUsage is the error for bad import arguments.
var errImportUsage = errors.New("usage: zkserver import [-progress] ZK_DATADIR [ZK_DATALOGDIR] -to zoo.cfg|DATADIR")

// runImport is `zkserver import`: it reads Apache ZooKeeper's data (the
// newest snapshot in ZK_DATADIR/version-2 and the logs after it in
// ZK_DATALOGDIR/version-2) and seeds the zkraft server that zoo.cfg (or
// DATADIR, standalone) describes, which must hold no zkraft data yet.
// A summary goes to out, progress lines (-progress) to progress.
func runImport(args []string, out, progress io.Writer) error {
	a, err := parseMigrateArgs(args)
	if err != nil || len(a.pos) < 1 || len(a.pos) > 2 {
		return errors.Join(err, errImportUsage)
	}
	cfg, err := zkraftConfig(a.to)
	if err != nil {
		return err
	}
	st, err := storage(cfg)
	if err != nil {
		return err
	}
	peers, err := cfg.EnsemblePeers()
	if err != nil {
		return err
	}
	// TTL owner encodings are read as TTL nodes whatever zkraft's
	// configuration says: only a ZooKeeper with extended types writes them.
	// Log entries are held to the jute.maxbuffer zkraft is to serve with,
	// as ZooKeeper holds them to its own.
	src := migrate.Source{DataDir: a.pos[0], ExtendedTypes: true, MaxBuffer: cfg.MaxBuffer}
	if len(a.pos) == 2 {
		src.LogDir = a.pos[1]
	}
	if a.progress {
		src.Progress = progress
	}
	im, err := migrate.Load(src)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "read %s and %d logs after it: %d transactions replayed\n", im.Snapshot, len(im.Logs), im.Txns)
	for _, n := range im.Notes {
		fmt.Fprintln(out, "note:", n)
	}
	if im.Digest != "" {
		fmt.Fprintln(out, im.Digest)
	}
	to := migrate.Target{Storage: st, ServerID: cfg.ServerID, Peers: peers, Progress: src.Progress,
		Tree: datatree.Config{ExtendedTypesEnabled: cfg.ExtendedTypesEnabled}}
	if err := migrate.Import(im, to); err != nil {
		return err
	}
	role := fmt.Sprintf("standalone server %d", cfg.ServerID)
	if len(peers) > 0 {
		role = fmt.Sprintf("server %d of a %d-member ensemble (import the same data into every member before starting any)", cfg.ServerID, len(peers))
	}
	fmt.Fprintf(out, "imported %d znodes and %d sessions, last zxid %#x, into %s for %s; the first write after it gets a higher zxid\n",
		im.Nodes(), len(im.Sessions), im.LastZxid, st.DataDir, role)
	return nil
}
