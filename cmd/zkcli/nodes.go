package main

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// cmdLs is "ls [-s] [-R] path": the sorted children as "[a, b]" (and the
// stat with -s), or with -R every path of the subtree, depth first.
func cmdLs(c *client, o *options) error {
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return err
	}
	if o.has('R') {
		return c.lsRecursive(path, c.watching(o))
	}
	children, st, err := c.children(path, c.watching(o))
	if err != nil {
		return cliMessage(err, path)
	}
	sort.Strings(children)
	if c.json {
		return c.printJSON(jsonLs{Path: path, Children: children, Stat: jsonStatOf(st)})
	}
	fmt.Fprintf(c.out, "[%s]\n", strings.Join(children, ", "))
	if o.has('s') {
		printStat(c.out, st)
	}
	return nil
}

// lsRecursive prints path and its descendants in visitDFS's order (with
// watch, it leaves a watch on each, as zkCli.sh's ls -R -w does).
func (c *client) lsRecursive(path string, watch bool) error {
	var all []string
	err := c.visitDFSWatch(path, watch, func(p string) {
		if !c.json {
			fmt.Fprintln(c.out, p)
		}
		all = append(all, p)
	})
	if err != nil || !c.json {
		return err
	}
	return c.printJSON(jsonTree{Path: path, Paths: all})
}

// cmdGet is "get [-s] path": the data ("null" for none), then the stat
// with -s.
func cmdGet(c *client, o *options) error {
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return err
	}
	data, st, err := c.getData(path, c.watching(o))
	if err != nil {
		return cliMessage(err, path)
	}
	if c.json {
		return c.printJSON(jsonGetOf(path, data, st))
	}
	if data == nil {
		data = []byte("null")
	}
	if o.has('c') {
		data = []byte(clientConfigString(string(data)))
	}
	fmt.Fprintf(c.out, "%s\n", data)
	if o.has('s') {
		printStat(c.out, st)
	}
	return nil
}

// cmdStat is "stat path".
func cmdStat(c *client, o *options) error {
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return err
	}
	ok, st, err := c.exists(path, c.watching(o))
	if err == nil && !ok {
		err = zk.ErrNoNode
	}
	if err != nil {
		return cliMessage(err, path)
	}
	if c.json {
		return c.printJSON(jsonStatOnly{Path: path, Stat: jsonStatOf(st)})
	}
	printStat(c.out, st)
	return nil
}

// cmdSet is "set [-s] [-v version] path data".
func cmdSet(c *client, o *options) error {
	path, v, err := o.versionedPath()
	if err != nil {
		return err
	}
	st, err := c.conn.Set(path, []byte(o.args[2]), v)
	if err != nil {
		return cliMessage(err, path)
	}
	if o.has('s') {
		printStat(c.out, st)
	}
	return nil
}

// maxTTL is EphemeralType.TTL's largest TTL: 2^40-1 milliseconds.
const maxTTL = 1<<40 - 1

// cmdCreate is "create [-s] [-e] [-c] [-t ttl] path [data] [acl]"; it
// reports "Created <path>" on standard error as zkCli.sh does.
func cmdCreate(c *client, o *options) error {
	e, s, cont := o.has('e'), o.has('s'), o.has('c')
	ttlStr, hasT := o.set['t']
	if cont && (e || s) {
		return errors.New("-c cannot be combined with -s or -e. Containers cannot be ephemeral or sequential.")
	}
	var ttl int64
	if hasT {
		n, err := strconv.ParseInt(ttlStr, 10, 64)
		if err != nil {
			return errors.New("-t argument must be a long value")
		}
		ttl = n
	}
	if hasT && e {
		return errors.New("TTLs cannot be used with Ephemeral znodes")
	}
	if hasT && cont {
		return errors.New("TTLs cannot be used with Container znodes")
	}
	if hasT && (ttl <= 0 || ttl > maxTTL) {
		return fmt.Errorf("ttl must be positive and cannot be larger than: %d", int64(maxTTL))
	}
	path := o.args[1]
	var data []byte
	if len(o.args) > 2 {
		data = []byte(o.args[2])
	}
	acl := zk.WorldACL(zk.PermAll)
	if len(o.args) > 3 {
		acl = parseACL(c.errw, o.args[3])
	}
	check := path
	if s {
		check += "1"
	}
	if err := validatePath(check); err != nil {
		return err
	}
	if len(acl) == 0 {
		// ZooKeeper.create rejects an empty ACL before sending it, with
		// an InvalidACLException that has no path.
		fmt.Fprintln(c.errw, "KeeperErrorCode = InvalidACL")
		return errors.New("Acl is not valid : null")
	}
	var flags int32
	if e {
		flags |= zk.FlagEphemeral
	}
	if s {
		flags |= zk.FlagSequence
	}
	var created string
	var err error
	switch {
	case cont:
		created, err = c.conn.CreateContainer(path, data, zk.FlagContainer, acl)
	case hasT:
		flags = zk.FlagTTL
		if s {
			flags = zk.FlagPersistentSequentialWithTTL
		}
		created, err = c.conn.CreateTTL(path, data, flags, acl, time.Duration(ttl)*time.Millisecond)
	default:
		created, err = c.conn.Create(path, data, flags, acl)
	}
	if errors.Is(err, zk.ErrInvalidACL) {
		fmt.Fprintln(c.errw, keeperErr(err, path))
	}
	if err != nil {
		return cliMessage(err, path)
	}
	fmt.Fprintf(c.errw, "Created %s\n", created)
	return nil
}

// cmdDelete is "delete [-v version] path".
func cmdDelete(c *client, o *options) error {
	path, v, err := o.versionedPath()
	if err != nil {
		return err
	}
	return cliMessage(c.conn.Delete(path, v), path)
}

// cmdDeleteAll is "deleteall path [-b batch size]": ZKUtil.deleteRecursive,
// which lists the subtree breadth first and deletes it leaves first in
// multi batches. A failed batch is reported, not an error (exit status 0),
// as in zkCli.sh.
func cmdDeleteAll(c *client, o *options) error {
	batch := 1000
	if b, ok := o.set['b']; ok {
		n, err := strconv.Atoi(b)
		if err != nil {
			return errors.New("-b argument must be an int value")
		}
		batch = n
	}
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return err
	}
	tree, err := c.listBFS(path)
	if err != nil {
		return err
	}
	var ops []interface{}
	for i := len(tree) - 1; i >= 0; i-- {
		ops = append(ops, &zk.DeleteRequest{Path: tree[i], Version: -1})
		if len(ops) == batch || i == 0 {
			if _, err := c.conn.Multi(ops...); err != nil {
				fmt.Fprintln(c.errw, "Failed to delete some node(s) in the subtree!")
				return nil
			}
			ops = nil
		}
	}
	return nil
}

// cmdSync is "sync path".
func cmdSync(c *client, o *options) error {
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return err
	}
	if _, err := c.conn.Sync(path); err != nil {
		var ke *keeperError
		if errors.As(keeperErr(err, path), &ke) {
			fmt.Fprintf(c.out, "Sync has failed. rc=%d\n", int32(ke.code))
			return nil
		}
		return err
	}
	fmt.Fprintln(c.out, "Sync is OK")
	return nil
}

// configPath is where servers keep the dynamic configuration.
const configPath = "/zookeeper/config"

// cmdConfig is "config [-c] [-w] [-s]": the data of /zookeeper/config, or
// with -c the client connection string made from it (properties.go); -w
// sets a watch in a session and, in one-shot mode, is pointless. It reads
// /zookeeper/config itself under a chroot too, as zkCli.sh does.
func cmdConfig(c *client, o *options) error {
	data, st, err := c.getConfig(c.watching(o))
	if err != nil {
		return cliMessage(err, configPath)
	}
	if data == nil {
		data = []byte("null")
	}
	if o.has('c') {
		data = []byte(clientConfigString(string(data)))
	}
	fmt.Fprintf(c.out, "%s\n", data)
	if o.has('s') {
		printStat(c.out, st)
	}
	return nil
}
