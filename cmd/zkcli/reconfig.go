package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/zkraft/zkraft/wire"
)

// reconfigUsage is zkCli.sh's usage text after the command's name.
const reconfigUsage = "[-s] [-v version] [[-file path] | [-members serverID=host:port1:port2;port3[,...]*]] | " +
	"[-add serverId=host:port1:port2;port3[,...]]* [-remove serverId[,...]*]"

// Messages of reconfig's option checks, as zkCli.sh words them.
var (
	errReconfigVersion = errors.New("-v must be followed by a long (configuration version)")
	errReconfigMixed   = errors.New("Can't use -file or -members together with -add or -remove (mixing incremental and non-incremental modes is not allowed)")
	errReconfigBoth    = errors.New("Can't use -file and -members together (conflicting non-incremental modes)")
)

// cmdReconfig is zkCli.sh's reconfig: an incremental (-add, -remove) or
// full (-members, -file) membership change, sent on the session (whose
// credentials must allow it); it prints the committed configuration.
func cmdReconfig(c *client, o *options) error {
	req, err := reconfigRequest(o)
	if err != nil {
		return err
	}
	var resp wire.GetDataResponse
	if err := c.tap.call(wire.OpReconfig, req, &resp, ""); err != nil {
		return cliMessage(err, "")
	}
	fmt.Fprintf(c.out, "Committed new configuration:\n%s\n", resp.Data)
	if o.has('s') {
		printStat(c.out, zkStat(&resp.Stat))
	}
	return nil
}

// reconfigRequest checks reconfig's options in zkCli.sh's order and
// builds the request (the lists lower-cased, as zkCli.sh sends them).
func reconfigRequest(o *options) (*wire.ReconfigRequest, error) {
	file, hasFile := o.long["file"]
	members, hasMembers := o.long["members"]
	add, hasAdd := o.long["add"]
	remove, hasRemove := o.long["remove"]
	if !hasFile && !hasMembers && !hasAdd && !hasRemove {
		return nil, fmt.Errorf("reconfig %s", reconfigUsage)
	}
	req := &wire.ReconfigRequest{CurConfigID: -1}
	if v, ok := o.set['v']; ok {
		n, err := strconv.ParseInt(v, 16, 64)
		if err != nil {
			return nil, errReconfigVersion
		}
		req.CurConfigID = n
	}
	if (hasFile || hasMembers) && (hasAdd || hasRemove) {
		return nil, errReconfigMixed
	}
	if hasFile && hasMembers {
		return nil, errReconfigBoth
	}
	req.JoiningServers = strings.ToLower(add)
	req.LeavingServers = strings.ToLower(remove)
	req.NewMembers = strings.ToLower(members)
	if hasFile {
		m, err := membersFromFile(file)
		if err != nil {
			return nil, fmt.Errorf("Error processing %s%v", file, err)
		}
		req.NewMembers = m
	}
	return req, nil
}

// membersFromFile reads a dynamic configuration file (server.N, group.N
// and weight.N lines; the version line is dropped, the server sets it)
// into reconfig's newline-separated membership.
func membersFromFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	var pe *os.PathError
	if errors.As(err, &pe) {
		// FileNotFoundException's message: "path (No such file or directory)".
		reason := pe.Err.Error()
		return "", fmt.Errorf("%s (%s%s)", path, strings.ToUpper(reason[:1]), reason[1:])
	}
	if err != nil {
		return "", err
	}
	var lines []string
	for _, kv := range javaProperties(string(data)) {
		switch {
		case strings.HasPrefix(kv[0], "server."), strings.HasPrefix(kv[0], "group."), strings.HasPrefix(kv[0], "weight."):
			lines = append(lines, kv[0]+"="+kv[1])
		}
	}
	if len(lines) == 0 {
		return "", errors.New("no server.N lines")
	}
	return strings.Join(lines, "\n"), nil
}
