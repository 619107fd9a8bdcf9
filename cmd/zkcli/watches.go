package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zkraft/zkraft/wire"
)

// addWatchModes are AddWatchMode's names, which addWatch -m takes in any
// case.
var addWatchModes = map[string]int32{
	"PERSISTENT":           wire.AddWatchPersistent,
	"PERSISTENT_RECURSIVE": wire.AddWatchPersistentRecursive,
}

// addWatchUsage is zkCli.sh's usage text after the command's name.
const addWatchUsage = "[-m mode] path # optional mode is one of [PERSISTENT, PERSISTENT_RECURSIVE] - default is PERSISTENT_RECURSIVE"

// cmdAddWatch is "addWatch [-m mode] path": a persistent (recursive by
// default) watch on the session. In a session its events print as
// zkCli.sh's watcher prints them (session.go); in one-shot mode the
// session ends at once, as zkCli.sh's does.
func cmdAddWatch(c *client, o *options) error {
	if len(o.args) != 2 {
		return fmt.Errorf("addWatch %s", addWatchUsage)
	}
	mode := wire.AddWatchPersistentRecursive
	if m, ok := o.set['m']; ok {
		v, known := addWatchModes[strings.ToUpper(m)]
		if !known {
			return fmt.Errorf("addWatch %s", addWatchUsage)
		}
		mode = v
	}
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return err
	}
	kind := kindRecursive
	if mode == wire.AddWatchPersistent {
		kind = kindPersistent
	}
	done := c.markWatch(kind, path)
	err := c.addWatch(path, mode)
	done(err == nil)
	return err
}

// addWatch adds a persistent watch and remembers it (by the server's path,
// under the chroot), so that the tap adds it again after a reconnection.
func (c *client) addWatch(path string, mode int32) error {
	sp := c.conn.serverPath(path)
	if err := c.tap.call(wire.OpAddWatch, &wire.AddWatchRequest{Path: sp, Mode: mode}, nil, path); err != nil {
		return cliMessage(err, path)
	}
	c.tap.addPersistent(sp, mode)
	return nil
}

// cmdRemoveWatches is "removewatches path [-c|-d|-a] [-l]": removes the
// session's watches of that type on path (any type by default). With -l a
// watch is also forgotten when the server cannot be reached. In a session
// the watches zkcli holds decide, as in Java's client (sessionwatches.go).
func cmdRemoveWatches(c *client, o *options) error {
	path := o.args[1]
	typ := wire.WatcherAny
	switch {
	case o.has('c'):
		typ = wire.WatcherChildren
	case o.has('d'):
		typ = wire.WatcherData
	}
	if err := validatePath(path); err != nil {
		return err
	}
	err := c.tap.call(wire.OpRemoveWatches, &wire.RemoveWatchesRequest{Path: c.conn.serverPath(path), Type: typ}, nil, path)
	if c.sess != nil {
		return c.removeSessionWatches(path, typ, o.has('l'), replyCode(err))
	}
	if err != nil && !(replyCode(err) == wire.CodeConnectionLoss && o.has('l')) {
		return cliMessage(err, path)
	}
	if typ == wire.WatcherAny {
		c.tap.dropPersistent(c.conn.serverPath(path))
	}
	return nil
}

// removeSessionWatches forgets the session's watches a removewatches the
// server answered with rc removed, and prints the events Java's client
// gives its watcher then (state Disconnected when the server was not
// reached).
func (c *client) removeSessionWatches(path string, typ int32, local bool, rc wire.Code) error {
	events, err := c.sess.link.watches.remove(path, typ, local, rc)
	if err != nil {
		return cliMessage(err, path)
	}
	state := "SyncConnected"
	if rc == wire.CodeConnectionLoss || rc == wire.CodeSessionExpired {
		state = "Disconnected"
	}
	for _, ev := range events {
		if ev == eventPersistentWatchRemoved {
			c.tap.dropPersistent(c.conn.serverPath(path))
		}
		c.sess.con.event(watcherText(fmt.Sprintf("WatchedEvent state:%s type:%s path:%s", state, javaEventTypes[ev], path)))
	}
	return nil
}

// replyCode is the server's answer a tap call's error stands for: OK, a
// server error, or ConnectionLoss when no connection was up.
func replyCode(err error) wire.Code {
	var ke *keeperError
	switch {
	case err == nil:
		return wire.CodeOK
	case errors.As(err, &ke):
		return ke.code
	default:
		return wire.CodeConnectionLoss
	}
}

// cmdWhoAmI is "whoami": the session's identities, as zkCli.sh prints
// them ("Auth scheme: User", then "scheme: user" per identity).
func cmdWhoAmI(c *client, o *options) error {
	var resp wire.WhoAmIResponse
	if err := c.tap.call(wire.OpWhoAmI, nil, &resp, ""); err != nil {
		return err
	}
	fmt.Fprintln(c.out, "Auth scheme: User")
	for _, ci := range resp.ClientInfo {
		fmt.Fprintf(c.out, "%s: %s\n", ci.AuthScheme, ci.User)
	}
	return nil
}
