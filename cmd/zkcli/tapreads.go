package main

import (
	"fmt"

	"github.com/zkraft/zkraft/wire"
)

// getEphemerals and getAllChildrenNumber are requests go-zookeeper v1.0.4
// does not offer; zkcli sends them on its session through the session tap
// (sessiontap.go), so getEphemerals lists the session's own ephemerals.

// cmdGetEphemerals is "getEphemerals [path]": the session's ephemeral
// nodes whose paths start with path, as Java prints a List. As in
// zkCli.sh, the chroot does not apply: Java's getEphemerals sends the
// prefix as it is (so under a chroot, getEphemerals /x looks for the
// server's /x), and the paths print as the server returns them.
func cmdGetEphemerals(c *client, o *options) error {
	prefix := "/"
	if len(o.args) > 1 {
		prefix = o.args[1]
	}
	if err := validatePath(prefix); err != nil {
		return err
	}
	var resp wire.GetEphemeralsResponse
	if err := c.tap.call(wire.OpGetEphemerals, &wire.GetEphemeralsRequest{PrefixPath: prefix}, &resp, prefix); err != nil {
		return cliMessage(err, prefix)
	}
	fmt.Fprintln(c.out, javaList(resp.Ephemerals))
	return nil
}

// cmdGetAllChildrenNumber is "getAllChildrenNumber path": how many nodes
// the subtree under path holds, path itself not counted.
func cmdGetAllChildrenNumber(c *client, o *options) error {
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return err
	}
	var resp wire.GetAllChildrenNumberResponse
	if err := c.tap.call(wire.OpGetAllChildrenNumber, &wire.GetAllChildrenNumberRequest{Path: c.conn.serverPath(path)}, &resp, path); err != nil {
		return cliMessage(err, path)
	}
	fmt.Fprintln(c.out, resp.TotalNumber)
	return nil
}

// javaList formats strings as Java's List.toString: "[a, b]".
func javaList(items []string) string {
	out := "["
	for i, s := range items {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out + "]"
}
