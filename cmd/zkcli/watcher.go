package main

import (
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Watches in a session. Every notification the server sends, and every
// change of the connection's state, reaches the session's event callback
// once (go-zookeeper publishes each on its global event stream, persistent
// watches' events included); zkcli prints there, as zkCli.sh's default
// watcher does, the notifications that fire a watch of the session's
// table (sessionwatches.go), and ignores the per-call watch channels
// go-zookeeper also returns. The server keeps one
// watch per path and kind for a session, so "get -w /x" then "stat -w /x"
// print one event when /x changes, as in zkCli.sh.

// javaStates are Watcher.Event.KeeperState names by wire value.
var javaStates = map[zk.State]string{
	-1: "Unknown", 0: "Disconnected", 1: "NoSyncConnected", 3: "SyncConnected", 4: "AuthFailed",
	5: "ConnectedReadOnly", 6: "SaslAuthenticated", -112: "Expired", 7: "Closed",
}

// javaEventTypes are Watcher.Event.EventType names by wire value.
var javaEventTypes = map[zk.EventType]string{
	-1: "None", 1: "NodeCreated", 2: "NodeDeleted", 3: "NodeDataChanged", 4: "NodeChildrenChanged",
	5: "DataWatchRemoved", 6: "ChildWatchRemoved", 7: "PersistentWatchRemoved",
}

// sessionStates maps go-zookeeper's connection states to the KeeperState
// zkCli.sh's watcher is told about; states missing here (connecting, TCP
// connected) are not events in Java.
var sessionStates = map[zk.State]string{
	zk.StateHasSession: "SyncConnected", zk.StateDisconnected: "Disconnected",
	zk.StateExpired: "Expired", zk.StateAuthFailed: "AuthFailed",
}

// watchedEvent formats ev as Java's WatchedEvent.toString, and reports
// false for events zkCli.sh does not see: go-zookeeper's own bookkeeping
// (a watch dropped because the connection closed) and its intermediate
// connection states.
func watchedEvent(ev zk.Event) (string, bool) {
	var state, typ, path string
	switch ev.Type {
	case zk.EventNotWatching:
		return "", false
	case zk.EventSession:
		s, ok := sessionStates[ev.State]
		if !ok {
			return "", false
		}
		state, typ, path = s, "None", "null"
	default:
		state, typ, path = javaStates[ev.State], javaEventTypes[ev.Type], ev.Path
		if state == "" {
			state = fmt.Sprintf("%d", int32(ev.State))
		}
		if typ == "" {
			typ = fmt.Sprintf("%d", int32(ev.Type))
		}
		if path == "" {
			path = "null"
		}
	}
	return fmt.Sprintf("WatchedEvent state:%s type:%s path:%s", state, typ, path), true
}

// watcherText is what zkCli.sh prints for one event: each of its two
// messages on a line of its own after an empty line.
func watcherText(event string) string {
	return "\nWATCHER::\n\n" + event + "\n"
}

// watching reports whether a command's -w should set a watch: only in a
// session, where the events can be printed.
func (c *client) watching(o *options) bool {
	return c.sess != nil && o.has('w')
}

// getData is Get, or GetW when watch is set (the watch joins the
// session's table, sessionwatches.go).
func (c *client) getData(path string, watch bool) ([]byte, *zk.Stat, error) {
	if watch {
		done := c.markWatch(kindData, path)
		data, st, _, err := c.conn.GetW(path)
		done(err == nil)
		return data, st, err
	}
	return c.conn.Get(path)
}

// getConfig is getData of /zookeeper/config, which is outside any chroot
// (Java's getConfig reads it on go-zookeeper's own path).
func (c *client) getConfig(watch bool) ([]byte, *zk.Stat, error) {
	if watch {
		done := c.markWatch(kindData, c.conn.clientPath(configPath))
		data, st, _, err := c.conn.Conn.GetW(configPath)
		done(err == nil)
		return data, st, err
	}
	return c.conn.Conn.Get(configPath)
}

// children is Children, or ChildrenW when watch is set.
func (c *client) children(path string, watch bool) ([]string, *zk.Stat, error) {
	if watch {
		done := c.markWatch(kindChild, path)
		ch, st, _, err := c.conn.ChildrenW(path)
		done(err == nil)
		return ch, st, err
	}
	return c.conn.Children(path)
}

// exists is Exists, or ExistsW when watch is set (a watch on a missing
// node fires when it is created).
func (c *client) exists(path string, watch bool) (bool, *zk.Stat, error) {
	if watch {
		done := c.markWatch(kindData, path)
		ok, st, _, err := c.conn.ExistsW(path)
		done(err == nil)
		return ok, st, err
	}
	return c.conn.Exists(path)
}
