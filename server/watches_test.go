package server

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"testing"

	"github.com/zkraft/zkraft/wire"
)

// testConn returns a bare connection of session id, enough for the watch
// manager, which only keys by it and reads its session.
func testConn(id int64) *conn {
	c := &conn{}
	c.session.Store(id)
	return c
}

// checkWatchIndex fails unless the manager's counters and its two indexes
// agree with each other.
func checkWatchIndex(t *testing.T, m *watchManager) {
	t.Helper()
	data, child, recursive, pairs := 0, 0, 0, 0
	for p, wp := range m.paths {
		if wp.path != p || len(wp.conns) == 0 {
			t.Errorf("path %q: entry for %q with %d connections", p, wp.path, len(wp.conns))
		}
		for c, bits := range wp.conns {
			pairs++
			data += b2i(bits&dataBits != 0)
			child += b2i(bits&childBits != 0)
			recursive += b2i(bits&modeRecursive != 0)
			if cw := m.byConn[c]; cw == nil || !slices.Contains(cw.paths, wp) || bits == 0 {
				t.Errorf("path %q: connection %d (bits %b) missing from its list", p, c.sessionID(), bits)
			}
		}
	}
	indexed := 0
	for _, cw := range m.byConn {
		indexed += cw.live
		if cw.live == 0 {
			t.Error("a connection without watches is kept")
		}
	}
	if data != m.dataWatches || child != m.childWatches || recursive != m.recursive || indexed != pairs {
		t.Errorf("counters data %d child %d recursive %d, index %d pairs; the tables hold %d, %d, %d and %d pairs",
			m.dataWatches, m.childWatches, m.recursive, indexed, data, child, recursive, pairs)
	}
}

func fired(m *watchManager, path string, k watchKind) []int64 {
	targets := map[*conn]struct{}{}
	m.fire(path, k, targets)
	var ids []int64
	for c := range targets {
		ids = append(ids, c.sessionID())
	}
	slices.Sort(ids)
	return ids
}

func TestWatchManagerOneShot(t *testing.T) {
	m := newWatchManager()
	a, b := testConn(1), testConn(2)
	m.add(a, "/x", watchData)
	m.add(a, "/x", watchChild)
	m.add(a, "/x", watchData) // twice is once
	m.add(b, "/x", watchChild)
	m.add(b, "/y", watchData)
	checkWatchIndex(t, m)
	if n := m.count(); n != 4 {
		t.Errorf("count = %d, want 4 (two data, two child)", n)
	}
	if conns, paths, total := m.summary(); conns != 2 || paths != 2 || total != 2 {
		t.Errorf("summary = %d conns %d paths %d watches, want 2 2 2", conns, paths, total)
	}
	if got := fired(m, "/x", watchData); !slices.Equal(got, []int64{1}) {
		t.Errorf("data watches fired on /x: %v, want [1]", got)
	}
	if got := fired(m, "/x", watchData); got != nil {
		t.Errorf("a one-shot data watch fired twice: %v", got)
	}
	checkWatchIndex(t, m)
	if got := fired(m, "/x", watchChild); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("child watches fired on /x: %v, want [1 2]", got)
	}
	checkWatchIndex(t, m)
	if _, ok := m.paths["/x"]; ok || m.byConn[a] != nil || m.byConn[b].live != 1 {
		t.Errorf("after /x fired: paths %v, a's list %v, b's %+v", slices.Collect(maps.Keys(m.paths)), m.byConn[a], m.byConn[b])
	}
	m.removeConn(b)
	checkWatchIndex(t, m)
	if len(m.paths) != 0 || len(m.byConn) != 0 || m.count() != 0 {
		t.Errorf("after the last connection closed: %d paths, %d connections, count %d", len(m.paths), len(m.byConn), m.count())
	}
}

func TestWatchManagerPersistent(t *testing.T) {
	m := newWatchManager()
	a, b := testConn(1), testConn(2)
	m.addPersistent(a, "/p", false)
	m.addPersistent(b, "/", true)
	m.addPersistent(b, "/", true)
	m.add(b, "/p", watchData)
	checkWatchIndex(t, m)
	if m.recursive != 1 || m.count() != 4 {
		t.Errorf("recursive %d count %d, want 1 and 4 (persistent in both tables, recursive, one-shot)", m.recursive, m.count())
	}
	for range 2 {
		if got := fired(m, "/p", watchData); !slices.Equal(got, []int64{1, 2}) {
			t.Errorf("data watches fired on /p: %v, want [1 2] (then [1])", got)
		}
		m.add(b, "/p", watchData)
		if got := fired(m, "/p", watchChild); !slices.Equal(got, []int64{1}) {
			t.Errorf("child watches fired on /p: %v, want the persistent one", got)
		}
	}
	targets := map[*conn]struct{}{}
	m.fireRecursive("/p/q/r", targets)
	if _, ok := targets[b]; !ok || len(targets) != 1 {
		t.Errorf("recursive watch on / did not fire alone for /p/q/r: %d targets", len(targets))
	}
	checkWatchIndex(t, m)
}

func TestWatchManagerRemove(t *testing.T) {
	m := newWatchManager()
	a := testConn(1)
	m.add(a, "/x", watchData)
	m.add(a, "/x", watchChild)
	m.addPersistent(a, "/x", false)
	m.addPersistent(a, "/x", true)
	for _, step := range []struct {
		typ          int32
		dryRun, want bool
	}{
		{wire.WatcherChildren, true, true},
		{wire.WatcherChildren, false, true},
		{wire.WatcherChildren, false, false},
		{wire.WatcherData, false, true},
		{wire.WatcherPersistentRecursive, false, true},
		{wire.WatcherPersistentRecursive, true, false},
		{wire.WatcherPersistent, true, true},
		{wire.WatcherAny, false, true},
		{wire.WatcherAny, true, false},
	} {
		if got := m.remove(a, "/x", step.typ, step.dryRun); got != step.want {
			t.Errorf("remove(type %d, dryRun %v) = %v, want %v", step.typ, step.dryRun, got, step.want)
		}
		checkWatchIndex(t, m)
	}
	if len(m.paths) != 0 || len(m.byConn) != 0 || m.recursive != 0 {
		t.Errorf("after removing everything: %d paths, %d connections, %d recursive", len(m.paths), len(m.byConn), m.recursive)
	}
	if m.remove(a, "/nowhere", wire.WatcherAny, false) {
		t.Error("removed a watch on an unwatched path")
	}
}

func TestWatchManagerDumps(t *testing.T) {
	m := newWatchManager()
	a, b, old := testConn(0x20), testConn(0x10), testConn(0x10)
	m.add(a, "/b", watchData)
	m.add(a, "/a", watchData)
	m.add(b, "/a", watchData)
	m.add(old, "/a", watchData) // an old connection of session 0x10
	m.add(b, "/c", watchChild)  // child watches are not listed
	wantPath := map[string][]int64{"/a": {0x10, 0x20}, "/b": {0x20}}
	if got := m.byPath(); !maps.EqualFunc(got, wantPath, slices.Equal) {
		t.Errorf("byPath = %v, want %v", got, wantPath)
	}
	wantSession := map[int64][]string{0x10: {"/a"}, 0x20: {"/a", "/b"}}
	if got := m.bySession(); !maps.EqualFunc(got, wantSession, slices.Equal) {
		t.Errorf("bySession = %v, want %v", got, wantSession)
	}
	if conns, paths, total := m.summary(); conns != 3 || paths != 2 || total != 4 {
		t.Errorf("summary = %d %d %d, want 3 connections, 2 paths, 4 watches", conns, paths, total)
	}
}

// TestWatchManagerRewatch sets and fires a connection's watches over and
// over, as a client that watches again after every event does: its list
// of paths stays bounded while it keeps other watches, and the dumps list
// each path once.
func TestWatchManagerRewatch(t *testing.T) {
	m := newWatchManager()
	a := testConn(1)
	m.add(a, "/keep", watchData)
	for i := range 1000 {
		p := []string{"/x", "/y", "/z"}[i%3]
		m.add(a, p, watchData)
		m.add(a, p, watchChild)
		if i%2 == 0 {
			fired(m, p, watchData)
		} else {
			m.remove(a, p, wire.WatcherAny, false)
		}
	}
	checkWatchIndex(t, m)
	for _, p := range []string{"/x", "/y", "/z", "/y"} {
		m.add(a, p, watchData)
	}
	if n := len(m.byConn[a].paths); n > 2*4+staleSlack {
		t.Errorf("the connection's list has %d entries for 4 paths", n)
	}
	want := map[int64][]string{1: {"/keep", "/x", "/y", "/z"}}
	if got := m.bySession(); !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("bySession = %v, want %v", got, want)
	}
	if conns, paths, total := m.summary(); conns != 1 || paths != 4 || total != 4 {
		t.Errorf("summary = %d %d %d, want 1 connection, 4 paths, 4 watches", conns, paths, total)
	}
	checkWatchIndex(t, m)
	m.removeConn(a)
	if len(m.paths) != 0 || len(m.byConn) != 0 || m.count() != 0 {
		t.Errorf("after close: %d paths, %d connections, count %d", len(m.paths), len(m.byConn), m.count())
	}
}

// benchWatches is a manager with conns connections × paths paths of data
// watches, as zkbench -op watches -watchkinds data sets them.
func benchWatches(conns, paths int) *watchManager {
	m := newWatchManager()
	cs := make([]*conn, conns)
	for i := range cs {
		cs[i] = testConn(int64(0x1000000 + i))
	}
	for p := range paths {
		path := fmt.Sprintf("/wbench-abcdef/p-%03d", p)
		for _, c := range cs {
			m.add(c, path, watchData)
		}
	}
	return m
}

// BenchmarkWatchDumps times the wchs, wchc and wchp dumps at one million
// data watches (go test -bench WatchDumps -run - ./server/).
func BenchmarkWatchDumps(b *testing.B) {
	m := benchWatches(10000, 100)
	s := &Server{watches: m}
	for _, d := range []struct {
		name  string
		write func(*Server, io.Writer)
	}{{"wchs", (*Server).writeWchs}, {"wchc", (*Server).writeWchc}, {"wchp", (*Server).writeWchp}} {
		b.Run(d.name, func(b *testing.B) {
			for b.Loop() {
				d.write(s, io.Discard)
			}
		})
	}
}
