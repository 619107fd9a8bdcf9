package main

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/zkraft/zkraft/wire"
)

// eventNames are Watcher.Event.EventType's names.
var eventNames = map[wire.EventType]string{
	wire.EventNone: "None", wire.EventNodeCreated: "NodeCreated", wire.EventNodeDeleted: "NodeDeleted",
	wire.EventNodeDataChanged: "NodeDataChanged", wire.EventNodeChildrenChanged: "NodeChildrenChanged",
}

// watchSessionStates are what watch --json prints for the session's
// changes, and watchSessionMessages what it writes on standard error
// without --json.
var (
	watchSessionStates = map[tapEventKind]string{
		tapDisconnected: "Disconnected", tapReconnected: "Reconnected", tapNewSession: "NewSession",
	}
	watchSessionMessages = map[tapEventKind]string{
		tapDisconnected: "zkcli: disconnected from the server; reconnecting",
		tapReconnected:  "zkcli: reconnected; the watch is set again (changes made while disconnected are not reported)",
		tapNewSession:   "zkcli: the session expired; a new session set the watch again (changes made meanwhile are not reported)",
	}
)

// jsonWatchEvent is one line of watch --json: an event (type and path) or
// a change of the session (state).
type jsonWatchEvent struct {
	Type  string `json:"type,omitempty"`
	Path  string `json:"path,omitempty"`
	State string `json:"state,omitempty"`
}

// watchInterrupt returns the channel that ends watch (interrupt or
// terminate) and a function to stop listening; tests replace it.
var watchInterrupt = defaultWatchInterrupt

func defaultWatchInterrupt() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}

// cmdWatch is "watch [-R] [-n count] path" (zkcli's own): it sets a
// persistent watch on path (-R: persistent and recursive, so the whole
// subtree) and prints one line per event, "NodeDataChanged /path" (with
// --json one object per line), until interrupted or, with -n, until count
// events. Losing the connection or the session is reported, and the watch
// set again on the new connection.
func cmdWatch(c *client, o *options) error {
	limit := -1
	if v, ok := o.set['n']; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("watch: -n wants a positive count, not %q", v)
		}
		limit = n
	}
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return err
	}
	mode, what := wire.AddWatchPersistent, "the node"
	if o.has('R') {
		mode, what = wire.AddWatchPersistentRecursive, "the subtree"
	}
	events, cancel := c.tap.listen()
	defer cancel()
	if err := c.addWatch(path, mode); err != nil {
		return err
	}
	defer c.endWatch(path)
	fmt.Fprintf(c.errw, "watching %s at %s; interrupt to stop\n", what, path)
	stop, release := watchInterrupt()
	defer release()
	for seen := 0; limit < 0 || seen < limit; {
		select {
		case ev := <-events:
			ev.event.Path = c.conn.clientPath(ev.event.Path)
			if ev.kind == tapNotification && !watchCovers(path, o.has('R'), ev.event.Path) {
				continue // another watch of the session
			}
			if c.printWatchEvent(ev) {
				seen++
			}
		case <-stop:
			return nil
		}
	}
	return nil
}

// endWatch removes, in a session, the watch watch set on path, unless the
// session holds watches of its own there (which removeWatches would take
// with it; watch's then stays, and its events do not print, as it is not
// in the session's table). In one-shot mode the session ends anyway.
func (c *client) endWatch(path string) {
	if c.sess == nil || c.sess.link == nil || c.sess.link.watches.any(path) {
		return
	}
	sp := c.conn.serverPath(path)
	c.tap.call(wire.OpRemoveWatches, &wire.RemoveWatchesRequest{Path: sp, Type: wire.WatcherAny}, nil, path)
	c.tap.dropPersistent(sp)
}

// watchCovers reports whether a watch on root (recursive or not) reports
// events on path.
func watchCovers(root string, recursive bool, path string) bool {
	if path == root {
		return true
	}
	return recursive && (root == "/" || strings.HasPrefix(path, root+"/"))
}

// printWatchEvent prints one event and reports whether it was a watch
// event (not a change of the session).
func (c *client) printWatchEvent(ev tapEvent) bool {
	if ev.kind != tapNotification {
		if c.json {
			c.printJSON(jsonWatchEvent{State: watchSessionStates[ev.kind]})
		} else {
			fmt.Fprintln(c.errw, watchSessionMessages[ev.kind])
		}
		return false
	}
	name, ok := eventNames[ev.event.Type]
	if !ok {
		name = strconv.Itoa(int(ev.event.Type))
	}
	if c.json {
		c.printJSON(jsonWatchEvent{Type: name, Path: ev.event.Path})
	} else {
		fmt.Fprintf(c.out, "%s %s\n", name, ev.event.Path)
	}
	return true
}
