package treejson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// What Import does with the export's ephemeral nodes.
const (
	// EphemeralsSkip leaves them out (the default): an ephemeral belongs
	// to a session of the source ensemble, and its owner creates it again
	// when it connects to the new one; a copy would block it (NODEEXISTS)
	// and hold its locks for ever.
	EphemeralsSkip = "skip"
	// EphemeralsPersistent creates them as persistent nodes.
	EphemeralsPersistent = "persistent"
)

// ImportOptions tune Import.
type ImportOptions struct {
	// To is the path the export's root is imported as; empty keeps it.
	// Its parent must exist.
	To string
	// Overwrite lets Import set the data and ACL of nodes that exist; it
	// never deletes a node. Without it, an existing node stops the import
	// (and when To exists, before anything is created).
	Overwrite bool
	// Ephemerals is EphemeralsSkip (default) or EphemeralsPersistent.
	Ephemerals string
	// Parallel is how many creates are in flight at once (default 32); a
	// node is created only once its parent is.
	Parallel int
	// Progress, when set, is called with the number of nodes imported
	// after every thousand, and once at the end.
	Progress func(nodes int)
}

// ImportStats counts what an import did.
type ImportStats struct {
	Created    int // nodes created
	Updated    int // existing nodes whose data and ACL were set (Overwrite)
	Skipped    int // ephemerals left out, and the nodes below them
	Sequencers int // parents whose sequence counter was moved past the imported names
}

// Import reads a tree export from r and creates its nodes.
//
// Nodes keep their names, data, ACL and mode: containers are created as
// containers and TTL nodes with their TTL (whose clock starts again from
// the import; the target needs extendedTypesEnabled). Sequential nodes are
// created under the names they had; then the sequence counter of their
// parent, which ZooKeeper derives from the parent's cversion, is moved past
// the highest imported number (by creating and deleting a child in
// batches), so a sequential create after the import sorts after them.
//
// The client needs CREATE on every parent it fills, including nodes whose
// imported ACL denies it: import as the super user (or a user every ACL
// grants ALL).
func Import(conn *zk.Conn, r io.Reader, opts ImportOptions) (ImportStats, error) {
	if opts.Parallel <= 0 {
		opts.Parallel = 32
	}
	switch opts.Ephemerals {
	case "":
		opts.Ephemerals = EphemeralsSkip
	case EphemeralsSkip, EphemeralsPersistent:
	default:
		return ImportStats{}, fmt.Errorf("treejson: ephemerals %q: want %s or %s", opts.Ephemerals, EphemeralsSkip, EphemeralsPersistent)
	}
	dec := json.NewDecoder(r)
	head, err := readHeader(dec)
	if err != nil {
		return ImportStats{}, err
	}
	to := head.Root
	if opts.To != "" {
		if to, err = cleanPath(opts.To); err != nil {
			return ImportStats{}, err
		}
	}
	im := newImporter(conn, head.Root, to, opts)
	if err := im.checkTarget(); err != nil {
		return ImportStats{}, err
	}
	err = im.run(dec)
	if err == nil {
		err = im.bumpSequences()
	}
	if opts.Progress != nil {
		opts.Progress(im.stats.Created + im.stats.Updated)
	}
	return im.stats, err
}

// readHeader reads the document up to the opening of the nodes array.
func readHeader(dec *json.Decoder) (Header, error) {
	var h Header
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return h, fmt.Errorf("%w: it does not start with a JSON object", ErrFormat)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return h, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		key, _ := tok.(string)
		if key == "nodes" {
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return h, fmt.Errorf("%w: nodes is not an array", ErrFormat)
			}
			break
		}
		var v any
		switch key {
		case "format":
			v = &h.Format
		case "version":
			v = &h.Version
		case "root":
			v = &h.Root
		}
		if err := dec.Decode(&v); err != nil {
			return h, fmt.Errorf("%w: field %s: %v", ErrFormat, key, err)
		}
	}
	if h.Format != Format || h.Version != Version {
		return h, fmt.Errorf("%w: format %q version %d (want %q version %d, and the header before the nodes)", ErrFormat, h.Format, h.Version, Format, Version)
	}
	if _, err := cleanPath(h.Root); err != nil {
		return h, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return h, nil
}

// importer creates nodes as they are decoded, each once its parent exists.
type importer struct {
	conn     *zk.Conn
	from, to string
	opts     ImportOptions
	sem      chan struct{}
	wg       sync.WaitGroup

	mu    sync.Mutex
	err   error
	stats ImportStats
	// seqMax is, per parent, the highest sequence number imported.
	seqMax map[string]int64
	// ancestors are the nodes on the way to the current one, with the
	// channel closed once each exists.
	ancestors []pending
	skipBelow string // an ephemeral left out: its subtree goes too
}

type pending struct {
	path string
	done chan struct{}
}

func newImporter(conn *zk.Conn, from, to string, opts ImportOptions) *importer {
	return &importer{conn: conn, from: from, to: to, opts: opts, sem: make(chan struct{}, opts.Parallel), seqMax: map[string]int64{}}
}

// checkTarget refuses a target whose parent is missing, or that exists
// without Overwrite.
func (im *importer) checkTarget() error {
	if im.to == "/" {
		return nil
	}
	parent, _ := splitLast(im.to)
	if ok, _, err := im.conn.Exists(parent); err != nil {
		return fmt.Errorf("treejson: %s: %w", parent, err)
	} else if !ok {
		return fmt.Errorf("treejson: the parent of %s, %s, does not exist", im.to, parent)
	}
	ok, _, err := im.conn.Exists(im.to)
	if err != nil {
		return fmt.Errorf("treejson: %s: %w", im.to, err)
	}
	if ok && !im.opts.Overwrite {
		return fmt.Errorf("%w: %s; refusing to import over it (ask for overwrite to set the data and ACLs of existing nodes)", ErrExists, im.to)
	}
	return nil
}

// run decodes the nodes and dispatches their creation.
func (im *importer) run(dec *json.Decoder) error {
	for dec.More() && im.failed() == nil {
		var n Node
		if err := dec.Decode(&n); err != nil {
			im.fail(fmt.Errorf("%w: node %d: %v", ErrFormat, im.count()+1, err))
			break
		}
		if err := im.dispatch(n); err != nil {
			im.fail(err)
		}
	}
	im.wg.Wait()
	if err := im.failed(); err != nil {
		return err
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		return fmt.Errorf("%w: the nodes array does not end (truncated?)", ErrFormat)
	}
	return nil
}

// dispatch starts the creation of n once its parent is created.
func (im *importer) dispatch(n Node) error {
	target, err := im.target(n.Path)
	if err != nil {
		return err
	}
	if im.skipBelow != "" && strings.HasPrefix(target, im.skipBelow+"/") {
		im.addSkipped()
		return nil
	}
	if n.Mode == ModeEphemeral && im.opts.Ephemerals == EphemeralsSkip {
		im.skipBelow = target
		im.addSkipped()
		return nil
	}
	parentPath, name := splitLast(target)
	var parent chan struct{}
	for len(im.ancestors) > 0 && im.ancestors[len(im.ancestors)-1].path != parentPath {
		im.ancestors = im.ancestors[:len(im.ancestors)-1]
	}
	if len(im.ancestors) > 0 {
		parent = im.ancestors[len(im.ancestors)-1].done
	} else if target != im.to {
		return fmt.Errorf("%w: %s comes before its parent", ErrFormat, n.Path)
	}
	done := make(chan struct{})
	im.ancestors = append(im.ancestors, pending{target, done})
	if n.Sequential && target != "/" {
		im.noteSequence(parentPath, name)
	}
	im.sem <- struct{}{}
	im.wg.Add(1)
	go func() {
		defer im.wg.Done()
		defer func() { <-im.sem }()
		if parent != nil {
			<-parent
		}
		if im.failed() == nil {
			if err := im.create(target, n); err != nil {
				im.fail(err)
			}
		}
		close(done)
	}()
	return nil
}

// target maps an exported path to the imported one.
func (im *importer) target(path string) (string, error) {
	if path == im.from {
		return im.to, nil
	}
	prefix := im.from
	if prefix != "/" {
		prefix += "/"
	}
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok || rest == "" {
		return "", fmt.Errorf("%w: %s is outside the export's root %s", ErrFormat, path, im.from)
	}
	return join(im.to, rest), nil
}

// create creates one node, or updates it with Overwrite.
func (im *importer) create(path string, n Node) error {
	if path == "/" {
		return im.update(path, n) // the root always exists
	}
	acl := toZK(n.ACL)
	var err error
	switch n.Mode {
	case ModeContainer:
		_, err = im.conn.CreateContainer(path, n.Data, zk.FlagContainer, acl)
	case ModeTTL:
		_, err = im.conn.CreateTTL(path, n.Data, zk.FlagTTL, acl, time.Duration(n.TTLMillis)*time.Millisecond)
	default:
		_, err = im.conn.Create(path, n.Data, 0, acl)
	}
	switch {
	case err == nil:
		im.mu.Lock()
		im.stats.Created++
		im.progress()
		im.mu.Unlock()
		return nil
	case errors.Is(err, zk.ErrNodeExists) && im.opts.Overwrite:
		return im.update(path, n)
	case errors.Is(err, zk.ErrNodeExists):
		return fmt.Errorf("%w: %s; refusing to overwrite it (ask for overwrite)", ErrExists, path)
	case errors.Is(err, zk.ErrNoAuth):
		return fmt.Errorf("treejson: create %s: %w (import as a user the ACLs allow, or as the super user)", path, err)
	}
	return fmt.Errorf("treejson: create %s: %w", path, err)
}

// update sets an existing node's data and ACL (the root's only with
// Overwrite; without it the root is left as it is).
func (im *importer) update(path string, n Node) error {
	if !im.opts.Overwrite {
		return nil
	}
	if _, err := im.conn.Set(path, n.Data, -1); err != nil {
		return fmt.Errorf("treejson: set %s: %w", path, err)
	}
	if _, err := im.conn.SetACL(path, toZK(n.ACL), -1); err != nil {
		return fmt.Errorf("treejson: set ACL of %s: %w", path, err)
	}
	im.mu.Lock()
	im.stats.Updated++
	im.progress()
	im.mu.Unlock()
	return nil
}

// progress reports every thousand nodes; the caller holds mu.
func (im *importer) progress() {
	if done := im.stats.Created + im.stats.Updated; im.opts.Progress != nil && done%1000 == 0 {
		im.opts.Progress(done)
	}
}

func (im *importer) noteSequence(parent, name string) {
	seq, err := strconv.ParseInt(name[len(name)-10:], 10, 64)
	if err == nil && seq > im.seqMax[parent] {
		im.seqMax[parent] = seq
	}
}

func (im *importer) addSkipped() {
	im.mu.Lock()
	im.stats.Skipped++
	im.mu.Unlock()
}

func (im *importer) count() int {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.stats.Created + im.stats.Updated + im.stats.Skipped
}

func (im *importer) fail(err error) {
	im.mu.Lock()
	if im.err == nil {
		im.err = err
	}
	im.mu.Unlock()
}

func (im *importer) failed() error {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.err
}
