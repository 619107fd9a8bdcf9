package server

import (
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

// Mode bits of one connection's watches on one path. The data table's
// bits are the low three; the child table's are the same bits shifted by
// childShift, so that one map entry holds a connection's watches of both
// kinds on a path (ZooKeeper keeps two tables; one entry instead of two
// is most of the saving for a data and a child watch on every path).
const (
	modeStandard  uint8 = 1 // one-shot, removed when it fires
	modePersist   uint8 = 2 // addWatch PERSISTENT (in both tables)
	modeRecursive uint8 = 4 // addWatch PERSISTENT_RECURSIVE (data table only)

	childShift = 3
	dataBits   = modeStandard | modePersist | modeRecursive
	childBits  = (modeStandard | modePersist) << childShift
	allBits    = dataBits | childBits
)

// bitsOf returns mode's bits in the table of k.
func bitsOf(k watchKind, mode uint8) uint8 {
	if k == watchChild {
		return mode << childShift
	}
	return mode
}

// watchedPath is one watched path: the connections watching it and their
// mode bits. Its path string is the one copy the manager keeps (the key
// of watchManager.paths), and connections index it by pointer, so a
// watch costs a map[*conn]uint8 entry here and a pointer-keyed entry in
// its connection's list (connWatches), not a copy of the path per
// connection.
type watchedPath struct {
	path  string
	conns map[*conn]uint8
}

// watchManager holds every connection's watches, indexed by path and by
// connection as ZooKeeper's WatchManager is, so a closing connection drops
// its watches cheaply. Watches belong to connections, not sessions.
type watchManager struct {
	mu        sync.Mutex
	paths     map[string]*watchedPath
	byConn    map[*conn]*connWatches
	recursive int // number of recursive watches; zero skips the ancestor walk
	// dataWatches and childWatches count the (connection, path) pairs
	// with bits in each table: mntr's watch_count without a walk.
	dataWatches, childWatches int
}

func newWatchManager() *watchManager {
	return &watchManager{
		paths:  make(map[string]*watchedPath),
		byConn: make(map[*conn]*connWatches),
	}
}

// add registers a one-shot watch.
func (m *watchManager) add(c *conn, path string, k watchKind) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.set(c, path, bitsOf(k, modeStandard))
}

// addPersistent registers a persistent or persistent-recursive watch.
func (m *watchManager) addPersistent(c *conn, path string, recursive bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if recursive {
		m.set(c, path, modeRecursive)
		return
	}
	m.set(c, path, modePersist|modePersist<<childShift)
}

// set adds bits to c's watches on path.
func (m *watchManager) set(c *conn, path string, bits uint8) {
	wp := m.paths[path]
	if wp == nil {
		wp = &watchedPath{path: path, conns: make(map[*conn]uint8)}
		m.paths[path] = wp
	}
	old := wp.conns[c]
	if old|bits == old {
		return
	}
	wp.conns[c] = old | bits
	m.counted(old, old|bits)
	if old != 0 {
		return
	}
	cw := m.byConn[c]
	if cw == nil {
		cw = &connWatches{}
		m.byConn[c] = cw
	}
	cw.add(c, wp)
}

// counted updates the counters for one connection's bits on one path
// going from old to now.
func (m *watchManager) counted(old, now uint8) {
	m.dataWatches += b2i(now&dataBits != 0) - b2i(old&dataBits != 0)
	m.childWatches += b2i(now&childBits != 0) - b2i(old&childBits != 0)
	m.recursive += b2i(now&modeRecursive != 0) - b2i(old&modeRecursive != 0)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// clear removes bits from c's watches on wp; it reports whether any were
// set. A connection left with no bits leaves the path's table and its own
// set, and a path left with no connections leaves the manager.
func (m *watchManager) clear(wp *watchedPath, c *conn, bits uint8) bool {
	if wp == nil {
		return false
	}
	old := wp.conns[c]
	if old&bits == 0 {
		return false
	}
	now := old &^ bits
	m.counted(old, now)
	if now != 0 {
		wp.conns[c] = now
		return true
	}
	delete(wp.conns, c)
	if len(wp.conns) == 0 && m.paths[wp.path] == wp {
		delete(m.paths, wp.path)
	}
	if cw := m.byConn[c]; cw != nil {
		if cw.live--; cw.live == 0 {
			delete(m.byConn, c)
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
		m.fire(ev.Path, watchData, targets)
		m.fireRecursive(ev.Path, targets)
	case wire.EventNodeDeleted:
		m.fire(ev.Path, watchData, targets)
		m.fire(ev.Path, watchChild, targets)
		m.fireRecursive(ev.Path, targets)
	case wire.EventNodeChildrenChanged:
		m.fire(ev.Path, watchChild, targets)
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

// fire collects the standard and persistent watches of table k on path
// and drops the standard ones.
func (m *watchManager) fire(path string, k watchKind, targets map[*conn]struct{}) {
	wp := m.paths[path]
	if wp == nil {
		return
	}
	firing, oneShot := bitsOf(k, modeStandard|modePersist), bitsOf(k, modeStandard)
	for c, bits := range wp.conns {
		if bits&firing == 0 {
			continue
		}
		targets[c] = struct{}{}
		m.clear(wp, c, oneShot)
	}
}

// fireRecursive collects recursive watches on path and on its ancestors.
func (m *watchManager) fireRecursive(path string, targets map[*conn]struct{}) {
	if m.recursive == 0 {
		return
	}
	for p := path; ; p = parentPath(p) {
		if wp := m.paths[p]; wp != nil {
			for c, bits := range wp.conns {
				if bits&modeRecursive != 0 {
					targets[c] = struct{}{}
				}
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
	if cw := m.byConn[c]; cw != nil {
		for _, wp := range cw.paths {
			m.clear(wp, c, allBits)
		}
	}
	delete(m.byConn, c)
}

// removeBits are the bits removeWatches (and checkWatches) match for each
// WatcherType.
var removeBits = map[int32]uint8{
	wire.WatcherChildren:            modeStandard << childShift,
	wire.WatcherData:                modeStandard,
	wire.WatcherPersistent:          modePersist | modePersist<<childShift,
	wire.WatcherPersistentRecursive: modeRecursive,
	wire.WatcherAny:                 allBits,
}

// remove implements removeWatches (and checkWatches when dryRun is true)
// for one connection; it reports whether a matching watch existed.
func (m *watchManager) remove(c *conn, path string, typ int32, dryRun bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	bits := removeBits[typ]
	wp := m.paths[path]
	if dryRun || wp == nil {
		return wp != nil && wp.conns[c]&bits != 0
	}
	return m.clear(wp, c, bits)
}

// count returns the number of watches in both tables (mntr zk_watch_count).
func (m *watchManager) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dataWatches + m.childWatches
}
