package treejson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	// Overwrite lets Import set the data and ACL of nodes that exist with
	// other data or ACLs; it never deletes a node. Without it, such a node
	// stops the import (see Import for nodes that exist as exported).
	Overwrite bool
	// Ephemerals is EphemeralsSkip (default) or EphemeralsPersistent.
	Ephemerals string
	// Parallel is how many creates are in flight at once (default 32); a
	// node is created only once its parent is.
	Parallel int
	// Progress, when set, is called every ProgressEvery while the import
	// runs, and once at the end (with Done set). It is called from a
	// goroutine of its own, never twice at once.
	Progress func(ImportProgress)
	// ProgressEvery is how often Progress is called (default a second).
	ProgressEvery time.Duration
}

// ImportStats counts what an import did.
type ImportStats struct {
	Created    int // nodes created
	Updated    int // existing nodes whose data and ACL were set (Overwrite)
	Unchanged  int // nodes that existed with the export's data and ACL (a rerun)
	Skipped    int // ephemerals left out, and the nodes below them
	Sequencers int // parents whose sequence counter was moved past the imported names
	// Warnings says what the import left undone but carried on past: a
	// sequence counter too far behind to move (see MaxCounterSteps).
	Warnings []string
}

// Import reads a tree export from r and creates its nodes.
//
// Nodes keep their names, data, ACL and mode: containers are created as
// containers and TTL nodes with their TTL (whose clock starts again from
// the import; the target needs extendedTypesEnabled). Sequential nodes are
// created under the names they had; then the sequence counter of their
// parent, which ZooKeeper derives from the parent's cversion, is moved past
// the highest imported number (by creating and deleting a child in
// batches), so a sequential create after the import sorts after them. A
// counter is moved by at most MaxCounterSteps; one further behind is left
// as it is, with a warning in ImportStats.Warnings.
//
// A node that exists with the export's data and ACL (and is not an
// ephemeral) is left as it is and counted as Unchanged, so an import that
// was interrupted (a truncated file, a lost connection) is resumed by
// running it again. A node that exists with other data or ACLs stops the
// import with ErrExists, unless Overwrite is set.
//
// The client needs CREATE on every parent it fills, including nodes whose
// imported ACL denies it: import as the super user (or a user every ACL
// grants ALL).
func Import(conn *zk.Conn, r io.Reader, opts ImportOptions) (ImportStats, error) {
	return importTree(conn, r, opts)
}

// importTree is Import on any client (the fuzz test's is in memory).
func importTree(conn client, r io.Reader, opts ImportOptions) (ImportStats, error) {
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
	stop := im.startProgress()
	err = im.run(dec)
	if err == nil {
		err = im.bumpSequences()
	}
	stop()
	return im.snapshot(), err
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

// client is what Import needs of a ZooKeeper client; *zk.Conn has it.
type client interface {
	Exists(path string) (bool, *zk.Stat, error)
	Get(path string) ([]byte, *zk.Stat, error)
	GetACL(path string) ([]zk.ACL, *zk.Stat, error)
	Create(path string, data []byte, flags int32, acl []zk.ACL) (string, error)
	CreateContainer(path string, data []byte, flag int32, acl []zk.ACL) (string, error)
	CreateTTL(path string, data []byte, flag int32, acl []zk.ACL, ttl time.Duration) (string, error)
	Set(path string, data []byte, version int32) (*zk.Stat, error)
	SetACL(path string, acl []zk.ACL, version int32) (*zk.Stat, error)
	Multi(ops ...interface{}) ([]zk.MultiResponse, error)
}

// importer creates nodes as they are decoded, each once its parent exists.
type importer struct {
	conn     client
	from, to string
	opts     ImportOptions
	sem      chan struct{}
	wg       sync.WaitGroup
	read     atomic.Int64 // bytes of the export decoded

	mu    sync.Mutex
	err   error
	stats ImportStats
	// counter is the parent whose sequence counter is being moved, and
	// how far (for Progress).
	counter      string
	counterSteps int64
	// seqMax is, per parent, the highest sequence number imported.
	seqMax map[string]int64
	// ancestors are the nodes on the way to the current one, with the
	// channel closed once each exists.
	ancestors []pending
	skipBelow string // an ephemeral left out: its subtree goes too
}

type pending struct {
	path     string
	cversion int32 // as exported
	done     chan struct{}
}

func newImporter(conn client, from, to string, opts ImportOptions) *importer {
	return &importer{conn: conn, from: from, to: to, opts: opts, sem: make(chan struct{}, opts.Parallel), seqMax: map[string]int64{}}
}

// checkTarget refuses a target whose parent is missing. A target that
// exists is compared node by node as the import goes (see Import).
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
	return nil
}

// run decodes the nodes and dispatches their creation.
func (im *importer) run(dec *json.Decoder) error {
	for dec.More() && im.failed() == nil {
		var n Node
		err := dec.Decode(&n)
		im.read.Store(dec.InputOffset())
		if err != nil {
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
	for len(im.ancestors) > 0 && im.ancestors[len(im.ancestors)-1].path != parentPath {
		im.ancestors = im.ancestors[:len(im.ancestors)-1]
	}
	var up *pending
	if len(im.ancestors) > 0 {
		up = &im.ancestors[len(im.ancestors)-1]
	} else if target != im.to {
		return fmt.Errorf("%w: %s comes before its parent", ErrFormat, n.Path)
	}
	var parent chan struct{}
	if up != nil {
		parent = up.done
	}
	if n.Sequential && target != "/" {
		im.noteSequence(parentPath, name, up)
	}
	done := make(chan struct{})
	im.ancestors = append(im.ancestors, pending{target, n.Stat.Cversion, done})
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

// create creates one node; one that exists is compared (existing).
func (im *importer) create(path string, n Node) error {
	if path == "/" {
		return im.existing(path, n) // the root always exists
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
		im.count1(&im.stats.Created)
		return nil
	case errors.Is(err, zk.ErrNodeExists):
		return im.existing(path, n)
	case errors.Is(err, zk.ErrNoAuth):
		return fmt.Errorf("treejson: create %s: %w (import as a user the ACLs allow, or as the super user)", path, err)
	}
	return fmt.Errorf("treejson: create %s: %w", path, err)
}

// noteSequence records a sequential node's number for its parent's
// counter. The export's flag is trusted when the name ends in ten digits
// and, if the parent is in the export with a cversion recorded (not 0),
// the number is below it (SawSequential): exports written before that
// rule marked every name ending in ten digits.
func (im *importer) noteSequence(parent, name string, up *pending) {
	seq, ok := sequenceNumber(name)
	if !ok || (up != nil && up.cversion != 0 && seq >= int64(up.cversion)) {
		return
	}
	if seq > im.seqMax[parent] {
		im.seqMax[parent] = seq
	}
}

// count1 adds one to a counter of stats.
func (im *importer) count1(c *int) {
	im.mu.Lock()
	*c++
	im.mu.Unlock()
}

func (im *importer) addSkipped() { im.count1(&im.stats.Skipped) }

// done is how many nodes are through; the caller holds mu.
func (im *importer) done() int {
	return im.stats.Created + im.stats.Updated + im.stats.Unchanged + im.stats.Skipped
}

func (im *importer) count() int {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.done()
}

// snapshot returns a copy of the stats.
func (im *importer) snapshot() ImportStats {
	im.mu.Lock()
	defer im.mu.Unlock()
	st := im.stats
	st.Warnings = slices.Clone(st.Warnings)
	return st
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
