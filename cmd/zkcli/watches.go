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
// default) watch on the session. Its events reach the tap's listeners; in
// one-shot mode the session ends at once, as zkCli.sh's does.
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
	return c.addWatch(path, mode)
}

// addWatch adds a persistent watch and remembers it, so that the tap adds
// it again after a reconnection.
func (c *client) addWatch(path string, mode int32) error {
	if err := c.tap.call(wire.OpAddWatch, &wire.AddWatchRequest{Path: path, Mode: mode}, nil, path); err != nil {
		return cliMessage(err, path)
	}
	c.tap.addPersistent(path, mode)
	return nil
}

// cmdRemoveWatches is "removewatches path [-c|-d|-a] [-l]": removes the
// session's watches of that type on path (any type by default). With -l a
// watch is also forgotten when the server cannot be reached.
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
	err := c.tap.call(wire.OpRemoveWatches, &wire.RemoveWatchesRequest{Path: path, Type: typ}, nil, path)
	var ke *keeperError
	lost := errors.As(err, &ke) && ke.code == wire.CodeConnectionLoss || errors.Is(err, errNotConnected)
	if err != nil && !(lost && o.has('l')) {
		return cliMessage(err, path)
	}
	if typ == wire.WatcherAny {
		c.tap.dropPersistent(path)
	}
	return nil
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
