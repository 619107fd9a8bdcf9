package server

import (
	"slices"
	"sort"
	"sync"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// watchKind selects the table a one-shot watch lives in.
type watchKind int

const (
	// watchData is set by exists and getData; it fires on create, delete and setData.
	watchData watchKind = iota
	// watchChild is set by getChildren; it fires on delete and on child changes.
	watchChild
)

// Mode bits of one connection's watch on one path in one table.
const (
	modeStandard  uint8 = 1 // one-shot, removed when it fires
	modePersist   uint8 = 2 // addWatch PERSISTENT (in both tables)
	modeRecursive uint8 = 4 // addWatch PERSISTENT_RECURSIVE (data table only)
)

// watchManager holds every connection's watches, indexed by path and by
// connection as ZooKeeper's WatchManager is, so a closing connection drops
// its watches cheaply. Watches belong to connections, not sessions.
type watchManager struct {
	mu        sync.Mutex
	data      map[string]map[*conn]uint8
	child     map[string]map[*conn]uint8
	byConn    map[*conn]map[string]struct{}
	recursive int // number of recursive watches; zero skips the ancestor walk
}

func newWatchManager() *watchManager {
	return &watchManager{
		data:   make(map[string]map[*conn]uint8),
		child:  make(map[string]map[*conn]uint8),
		byConn: make(map[*conn]map[string]struct{}),
	}
}

func (m *watchManager) table(k watchKind) map[string]map[*conn]uint8 {
	if k == watchChild {
		return m.child
	}
	return m.data
}

// add registers a one-shot watch.
func (m *watchManager) add(c *conn, path string, k watchKind) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.set(m.table(k), c, path, modeStandard)
}

// addPersistent registers a persistent or persistent-recursive watch.
func (m *watchManager) addPersistent(c *conn, path string, recursive bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if recursive {
		if m.data[path][c]&modeRecursive == 0 {
			m.recursive++
		}
		m.set(m.data, c, path, modeRecursive)
		return
	}
	m.set(m.data, c, path, modePersist)
	m.set(m.child, c, path, modePersist)
}

func (m *watchManager) set(t map[string]map[*conn]uint8, c *conn, path string, bit uint8) {
	w := t[path]
	if w == nil {
		w = make(map[*conn]uint8)
		t[path] = w
	}
	w[c] |= bit
	paths := m.byConn[c]
	if paths == nil {
		paths = make(map[string]struct{})
		m.byConn[c] = paths
	}
	paths[path] = struct{}{}
}

// clear removes bits from c's watch on path; it reports whether any were set.
func (m *watchManager) clear(t map[string]map[*conn]uint8, c *conn, path string, bits uint8) bool {
	w := t[path]
	had := w[c] & bits
	if had == 0 {
		return false
	}
	if had&modeRecursive != 0 {
		m.recursive--
	}
	if w[c] &^= bits; w[c] == 0 {
		delete(w, c)
		if len(w) == 0 {
			delete(t, path)
		}
	}
	return true
}

// trigger queues ev on every connection that watches it and may READ the
// node, once per connection, and drops the one-shot watches that fired
// (even where the event is withheld, as ZooKeeper does). It runs under the
// state write lock, so it never blocks. It returns how many connections'
// watches fired.
func (m *watchManager) trigger(ev datatree.Event) (fired int) {
	m.mu.Lock()
	targets := make(map[*conn]struct{})
	switch ev.Type {
	case wire.EventNodeCreated, wire.EventNodeDataChanged:
		m.fire(m.data, ev.Path, targets)
		m.fireRecursive(ev.Path, targets)
	case wire.EventNodeDeleted:
		m.fire(m.data, ev.Path, targets)
		m.fire(m.child, ev.Path, targets)
		m.fireRecursive(ev.Path, targets)
	case wire.EventNodeChildrenChanged:
		m.fire(m.child, ev.Path, targets)
	}
	m.mu.Unlock()
	for c := range targets {
		if c.srv.schemes.Allows(ev.ACL, wire.PermRead, c.authIDs()) {
			c.events.push(event{typ: ev.Type, path: ev.Path})
		}
	}
	return len(targets)
}

// notificationZxid is the zxid in every notification header: ZooKeeper 3.8
// sends -1 (3.9 started sending the triggering transaction's zxid).
const notificationZxid = -1

func (m *watchManager) fire(t map[string]map[*conn]uint8, path string, targets map[*conn]struct{}) {
	for c, bits := range t[path] {
		if bits&(modeStandard|modePersist) == 0 {
			continue
		}
		targets[c] = struct{}{}
		m.clear(t, c, path, modeStandard)
	}
}

// fireRecursive collects recursive watches on path and on its ancestors.
func (m *watchManager) fireRecursive(path string, targets map[*conn]struct{}) {
	if m.recursive == 0 {
		return
	}
	for p := path; ; p = parentPath(p) {
		for c, bits := range m.data[p] {
			if bits&modeRecursive != 0 {
				targets[c] = struct{}{}
			}
		}
		if p == "/" {
			return
		}
	}
}

func parentPath(p string) string {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "/"
}

// removeConn drops every watch of a closed connection.
func (m *watchManager) removeConn(c *conn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for path := range m.byConn[c] {
		m.clear(m.data, c, path, 0xff)
		m.clear(m.child, c, path, 0xff)
	}
	delete(m.byConn, c)
}

// remove implements removeWatches (and checkWatches when dryRun is true)
// for one connection; it reports whether a matching watch existed.
func (m *watchManager) remove(c *conn, path string, typ int32, dryRun bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	type target struct {
		t    map[string]map[*conn]uint8
		bits uint8
	}
	var targets []target
	switch typ {
	case wire.WatcherChildren:
		targets = []target{{m.child, modeStandard}}
	case wire.WatcherData:
		targets = []target{{m.data, modeStandard}}
	case wire.WatcherPersistent:
		targets = []target{{m.child, modePersist}, {m.data, modePersist}}
	case wire.WatcherPersistentRecursive:
		targets = []target{{m.data, modeRecursive}}
	case wire.WatcherAny:
		targets = []target{{m.child, 0xff}, {m.data, 0xff}}
	}
	found := false
	for _, tg := range targets {
		if dryRun {
			found = found || tg.t[path][c]&tg.bits != 0
		} else if m.clear(tg.t, c, path, tg.bits) {
			found = true
		}
	}
	return found
}

// count returns the number of watches in both tables (mntr zk_watch_count).
func (m *watchManager) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	total := 0
	for _, t := range []map[string]map[*conn]uint8{m.data, m.child} {
		for _, w := range t {
			total += len(w)
		}
	}
	return total
}

// The dumps below (wchs, wchc, wchp) cover the data-watch table only, as
// ZooKeeper 3.8's do: child watches are counted by mntr but not listed.

// summary returns what wchs prints: connections, paths and data watches.
func (m *watchManager) summary() (conns, paths, total int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := make(map[*conn]struct{})
	for _, w := range m.data {
		for c := range w {
			seen[c] = struct{}{}
		}
		total += len(w)
	}
	return len(seen), len(m.data), total
}

// byPath maps each data-watched path to the sessions watching it.
func (m *watchManager) byPath() map[string][]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string][]int64, len(m.data))
	for p, w := range m.data {
		ids := make([]int64, 0, len(w))
		for c := range w {
			ids = append(ids, c.sessionID())
		}
		// Two connections of one session (an old one not yet closed)
		// give it once. Sorting makes that linear in the watchers, where
		// a scan per watcher was quadratic: 2.3 s for wchp with 10,000
		// watchers on each of 100 paths.
		slices.Sort(ids)
		out[p] = slices.Compact(ids)
	}
	return out
}

// bySession maps each session to the paths its connection data-watches.
func (m *watchManager) bySession() map[int64][]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[int64][]string)
	for p, w := range m.data {
		for c := range w {
			out[c.sessionID()] = append(out[c.sessionID()], p)
		}
	}
	for _, paths := range out {
		sort.Strings(paths)
	}
	return out
}
