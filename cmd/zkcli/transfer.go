package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/zkraft/zkraft/treejson"
)

// cmdExport is "export path [file]" (zkcli's own): the subtree at path in
// the treejson format that zkserver export-tree writes, to file or to
// standard output; a summary goes to standard error. Exporting / leaves
// /zookeeper out.
func cmdExport(c *client, o *options) error {
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return err
	}
	out := c.out
	if len(o.args) > 2 && o.args[2] != "-" {
		f, err := os.Create(o.args[2])
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	stats, err := treejson.Export(c.conn, path, out, treejson.ExportOptions{})
	if err != nil {
		return cliMessage(err, path)
	}
	fmt.Fprintf(c.errw, "exported %d nodes (%d ephemeral) from %s; %d vanished during the walk\n",
		stats.Nodes, stats.Ephemerals, path, stats.Vanished)
	return nil
}

// cmdImport is "import [-o] [-e] file [path]" (zkcli's own): creates the
// nodes of an export read from file ("-" for standard input), as the
// export's root or, given path, under that name. -o sets the data and ACL
// of nodes that exist (none is deleted); without it an existing node stops
// the import. -e creates exported ephemerals as persistent nodes (they
// are skipped by default).
func cmdImport(c *client, o *options) error {
	var in io.Reader = os.Stdin
	if name := o.args[1]; name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	opts := treejson.ImportOptions{Overwrite: o.has('o'), Ephemerals: treejson.EphemeralsSkip}
	if o.has('e') {
		opts.Ephemerals = treejson.EphemeralsPersistent
	}
	if len(o.args) > 2 {
		opts.To = o.args[2]
		if err := validatePath(opts.To); err != nil {
			return err
		}
	}
	stats, err := treejson.Import(c.conn, bufio.NewReaderSize(in, 256<<10), opts)
	fmt.Fprintf(c.errw, "created %d nodes, updated %d, skipped %d (ephemerals and below), moved %d sequence counters\n",
		stats.Created, stats.Updated, stats.Skipped, stats.Sequencers)
	return err
}
