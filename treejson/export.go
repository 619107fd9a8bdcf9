package treejson

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/go-zookeeper/zk"
)

// ExportOptions tune Export.
type ExportOptions struct {
	// Parallel is how many nodes are read at once (default 32): the
	// children of one node are read together, then written in order.
	Parallel int
	// IncludeSystem exports /zookeeper too when the root is "/"; it is the
	// server's own (quotas, config) and skipped by default.
	IncludeSystem bool
	// Progress, when set, is called with the number of nodes written after
	// every thousand, and once at the end.
	Progress func(nodes int)
}

// ExportStats counts what an export wrote.
type ExportStats struct {
	Nodes      int // nodes written
	Ephemerals int // of which ephemerals
	Vanished   int // listed as a child but deleted before they were read
}

// Export writes the subtree at root as a tree export to w, in pre-order
// with children sorted by name.
func Export(conn *zk.Conn, root string, w io.Writer, opts ExportOptions) (ExportStats, error) {
	root, err := cleanPath(root)
	if err != nil {
		return ExportStats{}, err
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 32
	}
	ex := &exporter{conn: conn, out: bufio.NewWriterSize(w, 64<<10), opts: opts}
	head, _ := json.Marshal(Header{Format: Format, Version: Version, Root: root})
	ex.out.Write(head[:len(head)-1]) // the header's fields, then the nodes
	ex.out.WriteString(`,"nodes":[`)
	n, ok, err := ex.read(root)
	if err == nil && !ok {
		err = fmt.Errorf("treejson: export %s: %w", root, zk.ErrNoNode)
	}
	if err == nil {
		n.Sequential = ex.rootSequential(root)
	}
	if err == nil {
		err = ex.walk(n)
	}
	if err == nil {
		_, err = ex.out.WriteString("\n]}\n")
	}
	if err == nil {
		err = ex.out.Flush()
	}
	if opts.Progress != nil {
		opts.Progress(ex.stats.Nodes)
	}
	return ex.stats, err
}

type exporter struct {
	conn  *zk.Conn
	out   *bufio.Writer
	opts  ExportOptions
	stats ExportStats
}

// read reads one node; ok is false when it does not exist (any more).
func (ex *exporter) read(path string) (Node, bool, error) {
	data, st, err := ex.conn.Get(path)
	if err == nil {
		var acl []zk.ACL
		if acl, _, err = ex.conn.GetACL(path); err == nil {
			return newNode(path, data, acl, st), true, nil
		}
	}
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return Node{}, false, nil
	case errors.Is(err, zk.ErrNoAuth):
		return Node{}, false, fmt.Errorf("treejson: read %s: %w (export as a user the ACLs allow, or as the super user)", path, err)
	}
	return Node{}, false, fmt.Errorf("treejson: read %s: %w", path, err)
}

// rootSequential applies SawSequential to the export's root, whose
// parent is read for its cversion alone.
func (ex *exporter) rootSequential(root string) bool {
	if root == "/" {
		return false
	}
	parent, name := splitLast(root)
	ok, st, err := ex.conn.Exists(parent)
	return err == nil && ok && st != nil && SawSequential(name, st.Cversion)
}

// newNode is a node as read; Sequential is set by the caller, which knows
// the parent's cversion.
func newNode(path string, data []byte, acl []zk.ACL, st *zk.Stat) Node {
	mode, ttl := modeOf(st.EphemeralOwner)
	return Node{
		Path: path, Data: data, ACL: fromZK(acl), Mode: mode, TTLMillis: ttl,
		Stat: Stat{Czxid: st.Czxid, Mzxid: st.Mzxid, Ctime: st.Ctime, Mtime: st.Mtime, Version: st.Version,
			Cversion: st.Cversion, Aversion: st.Aversion, EphemeralOwner: st.EphemeralOwner, NumChildren: st.NumChildren},
	}
}

// walk writes n and then its subtree.
func (ex *exporter) walk(n Node) error {
	if err := ex.write(n); err != nil {
		return err
	}
	if n.Stat.NumChildren == 0 {
		return nil
	}
	kids, counter, err := ex.children(n.Path)
	if err != nil {
		return err
	}
	for len(kids) > 0 {
		batch := kids[:min(len(kids), ex.opts.Parallel)]
		kids = kids[len(batch):]
		nodes, err := ex.readAll(n.Path, batch)
		if err != nil {
			return err
		}
		for i, c := range nodes {
			if c == nil {
				ex.stats.Vanished++
				continue
			}
			c.Sequential = SawSequential(batch[i], counter)
			if err := ex.walk(*c); err != nil {
				return err
			}
		}
	}
	return nil
}

// children lists a node's children, sorted, and returns the cversion the
// listing came with: a sequential child among them has a number below it.
// A node deleted meanwhile has none.
func (ex *exporter) children(path string) ([]string, int32, error) {
	kids, st, err := ex.conn.Children(path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, 0, nil
	} else if err != nil {
		return nil, 0, fmt.Errorf("treejson: list %s: %w", path, err)
	}
	var counter int32
	if st != nil {
		counter = st.Cversion
	}
	slices.Sort(kids)
	if path == "/" && !ex.opts.IncludeSystem {
		kids = slices.DeleteFunc(kids, func(k string) bool { return k == "zookeeper" })
	}
	return kids, counter, nil
}

// readAll reads the named children of parent at once; a child deleted
// meanwhile is nil.
func (ex *exporter) readAll(parent string, names []string) ([]*Node, error) {
	out := make([]*Node, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, ok, err := ex.read(join(parent, name))
			if ok {
				out[i] = &n
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

func (ex *exporter) write(n Node) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	if ex.stats.Nodes > 0 {
		ex.out.WriteByte(',')
	}
	ex.out.WriteByte('\n')
	if _, err := ex.out.Write(b); err != nil {
		return fmt.Errorf("treejson: write: %w", err)
	}
	ex.stats.Nodes++
	if n.Mode == ModeEphemeral {
		ex.stats.Ephemerals++
	}
	if ex.opts.Progress != nil && ex.stats.Nodes%1000 == 0 {
		ex.opts.Progress(ex.stats.Nodes)
	}
	return nil
}

// splitLast splits a path into its parent and its last name.
func splitLast(path string) (string, string) {
	i := len(path) - 1
	for i > 0 && path[i] != '/' {
		i--
	}
	if i == 0 {
		return "/", path[1:]
	}
	return path[:i], path[i+1:]
}
