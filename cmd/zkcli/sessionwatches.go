package main

import (
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/wire"
)

// The watches of a session, as Java's client keeps them (ZKWatchManager).
// zkCli.sh prints a notification only when its client holds a watch the
// notification fires, and forgets a one-shot watch once fired; removewatches
// asks the server, then drops the client's own watches of that type and
// tells the watcher with a ...WatchRemoved event per kind removed. zkcli
// keeps the same table per connection: go-zookeeper's own list of
// watches cannot be read or changed from outside, and persistent watches
// (set through the session tap) are not in it at all.

// watchKind is one of the client's watch lists.
type watchKind int

const (
	// kindData: get -w, config -w, stat -w (Java's data and exist
	// watches, which every rule treats alike).
	kindData       watchKind = iota
	kindChild                // ls -w
	kindPersistent           // addWatch -m PERSISTENT
	kindRecursive            // addWatch (PERSISTENT_RECURSIVE)
	numKinds
)

// watchTable is one session's watches: which paths hold a watch of each
// kind.
type watchTable struct {
	mu    sync.Mutex
	paths [numKinds]map[string]bool
}

func newWatchTable() *watchTable {
	w := &watchTable{}
	for k := range w.paths {
		w.paths[k] = map[string]bool{}
	}
	return w
}

// set marks a watch of kind k on path and reports whether it was there
// already.
func (w *watchTable) set(k watchKind, path string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := w.paths[k][path]
	w.paths[k][path] = true
	return had
}

// unset forgets a watch of kind k on path.
func (w *watchTable) unset(k watchKind, path string) {
	w.mu.Lock()
	delete(w.paths[k], path)
	w.mu.Unlock()
}

// take forgets a watch and reports whether there was one; w.mu is held.
func (w *watchTable) take(k watchKind, path string) bool {
	had := w.paths[k][path]
	delete(w.paths[k], path)
	return had
}

// fire reports whether a notification of type typ on path reaches one of
// the session's watches, and forgets the one-shot watches it fires.
func (w *watchTable) fire(typ zk.EventType, path string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	hit := false
	switch typ {
	case zk.EventNodeCreated, zk.EventNodeDataChanged:
		hit = w.take(kindData, path)
	case zk.EventNodeChildrenChanged:
		hit = w.take(kindChild, path)
	case zk.EventNodeDeleted:
		hit = w.take(kindData, path)
		hit = w.take(kindChild, path) || hit
	default:
		return true // not a watch's event: zkCli.sh's watcher gets it too
	}
	return w.persistentCovers(path) || hit
}

// persistentCovers reports whether a persistent watch on path, or a
// recursive one on path or above it, is set; w.mu is held.
func (w *watchTable) persistentCovers(path string) bool {
	if w.paths[kindPersistent][path] {
		return true
	}
	for p := path; ; p = parentPath(p) {
		if w.paths[kindRecursive][p] {
			return true
		}
		if p == "/" {
			return false
		}
	}
}

// any reports whether path holds a watch of any kind.
func (w *watchTable) any(path string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k := range w.paths {
		if w.paths[k][path] {
			return true
		}
	}
	return false
}

// parentPath is the parent of a znode path other than "/".
func parentPath(p string) string {
	i := strings.LastIndex(p, "/")
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// removalKinds are the kinds removewatches of each watcher type looks for
// (first) and removes (second), as Java's client: -c and -d are satisfied
// by a persistent watch but do not remove it, while the server does.
var removalKinds = map[int32][2][]watchKind{
	wire.WatcherChildren: {{kindChild, kindPersistent, kindRecursive}, {kindChild}},
	wire.WatcherData:     {{kindData, kindPersistent, kindRecursive}, {kindData}},
	wire.WatcherAny: {{kindChild, kindData, kindPersistent, kindRecursive},
		{kindChild, kindData, kindPersistent, kindRecursive}},
}

// The event types of Java's client that report a removed watch; the
// server never sends them, so go-zookeeper has no names for them.
const (
	eventDataWatchRemoved       zk.EventType = 5
	eventChildWatchRemoved      zk.EventType = 6
	eventPersistentWatchRemoved zk.EventType = 7
)

// removedEvents are the event types reporting a removed watch of a kind.
var removedEvents = [numKinds]zk.EventType{
	kindData: eventDataWatchRemoved, kindChild: eventChildWatchRemoved,
	kindPersistent: eventPersistentWatchRemoved, kindRecursive: eventPersistentWatchRemoved,
}

// remove applies a removewatches of watcher type typ on path, which the
// server answered with rc, as Java's ZKWatchManager.removeWatcher does: it
// fails when the table holds no such watch (NoWatcher, as Java's
// NoWatcherException), or the server failed and local
// (-l) is not set; otherwise it forgets the watches of that type and
// returns the event types to report, in Java's order (children, data,
// persistent), one per type.
func (w *watchTable) remove(path string, typ int32, local bool, rc wire.Code) ([]zk.EventType, error) {
	kinds, ok := removalKinds[typ]
	if !ok {
		return nil, &keeperError{wire.CodeNoWatcher, path}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	found := false
	for _, k := range kinds[0] {
		found = found || w.paths[k][path]
	}
	if !found {
		return nil, &keeperError{wire.CodeNoWatcher, path}
	}
	if rc != wire.CodeOK && !local {
		return nil, &keeperError{rc, path}
	}
	var events []zk.EventType
	for _, k := range kinds[1] {
		ev := removedEvents[k]
		if w.take(k, path) && (len(events) == 0 || events[len(events)-1] != ev) {
			events = append(events, ev)
		}
	}
	if len(events) == 0 {
		return nil, &keeperError{wire.CodeNoWatcher, path}
	}
	return events, nil
}

// markWatch marks a watch of kind k on path in the session's table before
// the request that sets it is sent (its notification may come right after
// the reply, before the request's caller runs again). The function it
// returns is called with the request's outcome: a watch that was not
// there before is forgotten when the request failed.
func (c *client) markWatch(k watchKind, path string) func(ok bool) {
	if c.sess == nil || c.sess.link == nil {
		return func(bool) {}
	}
	w := c.sess.link.watches
	had := w.set(k, path)
	return func(ok bool) {
		if !ok && !had {
			w.unset(k, path)
		}
	}
}
