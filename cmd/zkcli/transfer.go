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
	// treejson works on go-zookeeper's connection, which has no chroot:
	// it exports the server's path, and chrootExport takes the chroot out
	// of the document's paths.
	var w io.Writer = out
	var strip *chrootExport
	if c.conn.chroot != "" {
		strip = &chrootExport{w: out, chroot: c.conn.chroot}
		w = strip
	}
	stats, err := treejson.Export(c.conn.Conn, c.conn.serverPath(path), w, treejson.ExportOptions{})
	if strip != nil {
		if ferr := strip.flush(); err == nil && ferr != nil {
			err = ferr
		}
	}
	if err != nil {
		return cliMessage(err, path)
	}
	fmt.Fprintf(c.errw, "exported %d nodes (%d ephemeral) from %s; %d vanished during the walk\n",
		stats.Nodes, stats.Ephemerals, path, stats.Vanished)
	return nil
}

// cmdImport is "import [-o] [-e] file [path]" (zkcli's own): creates the
// nodes of an export read from file ("-" for standard input), as the
// export's root or, given path, under that name. Nodes that exist as
// exported are left alone, so running an interrupted import again resumes
// it; -o sets the data and ACL of nodes that exist with others (none is
// deleted), which without it stop the import. -e creates exported
// ephemerals as persistent nodes (they are skipped by default). On a
// terminal, a progress line is rewritten every second.
func cmdImport(c *client, o *options) error {
	var in io.Reader = os.Stdin
	var size int64
	if name := o.args[1]; name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		in = f
	}
	opts := treejson.ImportOptions{Overwrite: o.has('o'), Ephemerals: treejson.EphemeralsSkip}
	if o.has('e') {
		opts.Ephemerals = treejson.EphemeralsPersistent
	}
	if len(o.args) > 2 {
		if err := validatePath(o.args[2]); err != nil {
			return err
		}
		opts.To = c.conn.serverPath(o.args[2])
	}
	if showsProgress(c) {
		opts.Progress = treejson.TerminalProgress(c.errw, size)
	}
	br := bufio.NewReaderSize(in, 256<<10)
	if c.conn.chroot != "" && opts.To == "" {
		// The export's root, under the chroot (treejson works on
		// go-zookeeper's connection, which has none).
		if root := exportRoot(br); root != "" {
			opts.To = c.conn.serverPath(root)
		}
	}
	stats, err := treejson.Import(c.conn.Conn, br, opts)
	fmt.Fprintf(c.errw, "created %d nodes, updated %d, unchanged %d (already as exported), skipped %d (ephemerals and below), moved %d sequence counters\n",
		stats.Created, stats.Updated, stats.Unchanged, stats.Skipped, stats.Sequencers)
	for _, warning := range stats.Warnings {
		fmt.Fprintln(c.errw, "warning:", warning)
	}
	return err
}

// showsProgress reports whether standard error is a terminal: in one-shot
// mode when it is one, in a session when the session is interactive (its
// console redraws the prompt).
func showsProgress(c *client) bool {
	if c.sess != nil {
		return c.sess.con != nil && c.sess.con.before != nil
	}
	return isTerminal(c.errw)
}
