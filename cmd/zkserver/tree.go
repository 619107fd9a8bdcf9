package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/chzyer/readline"
	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/treejson"
)

// errTreeUsage is the error for bad export-tree or import-tree arguments.
var errTreeUsage = errors.New("usage: zkserver export-tree -server HOST:PORT [-auth SCHEME:DATA] [-include-system] PATH > FILE.json\n" +
	"       zkserver import-tree -server HOST:PORT [-auth SCHEME:DATA] [-to PATH] [-overwrite] [-ephemerals skip|persistent] [FILE.json]")

// treeFlags are the flags both commands share.
type treeFlags struct {
	fs      *flag.FlagSet
	server  *string
	auth    *string
	timeout *time.Duration
}

func newTreeFlags(name string) treeFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return treeFlags{
		fs:      fs,
		server:  fs.String("server", "", "`host:port` of any server of the ensemble (zkraft or Apache ZooKeeper); a comma-separated list works too"),
		auth:    fs.String("auth", "", "add `scheme:data` as the client's auth before anything, e.g. digest:super:secret"),
		timeout: fs.Duration("timeout", 30*time.Second, "session timeout"),
	}
}

// runExportTree is `zkserver export-tree`: it writes the subtree at PATH
// as JSON (package treejson) to stdout.
func runExportTree(args []string, stdout, stderr io.Writer) error {
	tf := newTreeFlags("export-tree")
	system := tf.fs.Bool("include-system", false, "export /zookeeper too when PATH is /")
	if err := tf.fs.Parse(args); err != nil || tf.fs.NArg() != 1 || *tf.server == "" {
		return treeUsageError(err)
	}
	conn, err := tf.connect()
	if err != nil {
		return err
	}
	defer conn.Close()
	out := bufio.NewWriterSize(stdout, 256<<10)
	stats, err := treejson.Export(conn, tf.fs.Arg(0), out, treejson.ExportOptions{
		IncludeSystem: *system,
		Progress:      func(n int) { fmt.Fprintf(stderr, "\rexported %d nodes", n) },
	})
	if err == nil {
		err = out.Flush()
	}
	fmt.Fprintln(stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "exported %d nodes (%d ephemeral) from %s; %d vanished during the walk\n", stats.Nodes, stats.Ephemerals, tf.fs.Arg(0), stats.Vanished)
	return nil
}

// runImportTree is `zkserver import-tree`: it creates the nodes of an
// export read from FILE (or stdin).
func runImportTree(args []string, stdin io.Reader, stderr io.Writer) error {
	tf := newTreeFlags("import-tree")
	to := tf.fs.String("to", "", "import the export's root as `path` (its parent must exist); default: where it was")
	overwrite := tf.fs.Bool("overwrite", false, "set the data and ACL of nodes that exist with others (none is deleted); without it such a node stops the import\n(nodes that exist as exported are left alone: run an interrupted import again to resume it)")
	ephemerals := tf.fs.String("ephemerals", treejson.EphemeralsSkip, "what to do with exported ephemerals: skip, or create them as persistent")
	if err := tf.fs.Parse(args); err != nil || tf.fs.NArg() > 1 || *tf.server == "" {
		return treeUsageError(err)
	}
	in := stdin
	if name := tf.fs.Arg(0); name != "" && name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	conn, err := tf.connect()
	if err != nil {
		return err
	}
	defer conn.Close()
	opts := treejson.ImportOptions{To: *to, Overwrite: *overwrite, Ephemerals: *ephemerals}
	if isTerminal(stderr) {
		opts.Progress = treejson.TerminalProgress(stderr, fileSize(in))
	}
	stats, err := treejson.Import(conn, bufio.NewReaderSize(in, 256<<10), opts)
	printImportStats(stderr, stats)
	return err
}

// printImportStats writes an import's summary and warnings.
func printImportStats(w io.Writer, stats treejson.ImportStats) {
	fmt.Fprintf(w, "created %d nodes, updated %d, unchanged %d (already as exported), skipped %d (ephemerals and below), moved %d sequence counters\n",
		stats.Created, stats.Updated, stats.Unchanged, stats.Skipped, stats.Sequencers)
	for _, warning := range stats.Warnings {
		fmt.Fprintln(w, "warning:", warning)
	}
}

// isTerminal reports whether w is a terminal: progress lines go only there.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}

// fileSize is the size of a regular file r reads, or 0.
func fileSize(r io.Reader) int64 {
	f, ok := r.(*os.File)
	if !ok {
		return 0
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

func treeUsageError(err error) error {
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return fmt.Errorf("%v\n%w", err, errTreeUsage)
	}
	return errTreeUsage
}

// connect opens a session and adds the -auth credentials.
func (tf treeFlags) connect() (*zk.Conn, error) {
	conn, events, err := zk.Connect(strings.Split(*tf.server, ","), *tf.timeout, zk.WithLogger(quietZK{}))
	if err != nil {
		return nil, err
	}
	deadline := time.After(*tf.timeout)
	for conn.State() != zk.StateHasSession {
		select {
		case <-events:
		case <-deadline:
			conn.Close()
			return nil, fmt.Errorf("no session with %s after %v", *tf.server, *tf.timeout)
		}
	}
	if *tf.auth != "" {
		scheme, data, ok := strings.Cut(*tf.auth, ":")
		if !ok {
			conn.Close()
			return nil, fmt.Errorf("-auth %q: want scheme:data, e.g. digest:user:password", *tf.auth)
		}
		if err := conn.AddAuth(scheme, []byte(data)); err != nil {
			conn.Close()
			return nil, fmt.Errorf("-auth %s: %w", scheme, err)
		}
	}
	return conn, nil
}

// quietZK silences go-zookeeper's own log lines.
type quietZK struct{}

func (quietZK) Printf(string, ...interface{}) {}
