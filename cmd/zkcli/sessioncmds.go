package main

import (
	"fmt"

	"github.com/zkraft/zkraft/internal/buildinfo"
)

// sessionCommands are zkCli.sh's commands about the session itself. They
// join the commands table (args.go), so one-shot mode, the usage list and
// the completion see them as well.
var sessionCommands = map[string]*command{
	"history":      {usage: "", run: cmdHistoryList},
	"redo":         {usage: "cmdno", run: cmdRedo},
	"printwatches": {usage: "on|off", run: cmdPrintWatches},
	"connect":      {usage: "host:port", run: cmdConnect},
	"close":        {usage: "", run: cmdClose},
	"quit":         {usage: "", run: cmdQuit},
	"version":      {usage: "", offline: true, run: cmdVersion},
}

// unparsed are the commands zkCli.sh handles itself, before its "Not
// connected" check and without parsing options: their words are taken as
// they are, and they run on a closed session too (which then also says
// "Not connected", as zkCli.sh does).
var unparsed = map[string]bool{"history": true, "redo": true, "printwatches": true, "connect": true, "quit": true}

// addSessionCommands puts sessionCommands into commands.
func addSessionCommands() {
	for name, cmd := range sessionCommands {
		commands[name] = cmd
	}
}

// cmdHistoryList is "history": the last ten lines and this one.
func cmdHistoryList(c *client, o *options) error {
	c.state().hist.list(c.out)
	return nil
}

// cmdRedo is "redo N": line N again (recorded as this line). As in
// zkCli.sh, "redo" alone does nothing and the redone line's failure is
// not redo's.
func cmdRedo(c *client, o *options) error {
	if len(o.args) < 2 {
		return nil
	}
	words, err := c.state().hist.redo(o.args[1])
	if err != nil {
		return err
	}
	if c.sess != nil {
		c.execute(words)
	}
	return nil
}

// cmdPrintWatches is "printwatches [on|off]": anything but "on" turns the
// printing of watch events off.
func cmdPrintWatches(c *client, o *options) error {
	s := c.state()
	if len(o.args) < 2 {
		onOff := "off"
		if s.printWatches.Load() {
			onOff = "on"
		}
		fmt.Fprintf(c.out, "printwatches is %s\n", onOff)
		return nil
	}
	s.printWatches.Store(o.args[1] == "on")
	return nil
}

// cmdConnect is "connect [connect-string]": a new session, on the same
// servers and chroot when none is given; the old one is closed. The usage
// says host:port, as zkCli.sh's, but the argument is a whole connect
// string (several hosts, [IPv6], chroot: connstring.go), as in zkCli.sh.
func cmdConnect(c *client, o *options) error {
	server := c.server
	if len(o.args) > 1 {
		server = o.args[1]
	}
	if c.sess == nil {
		c.conn.Close()
		c.server = server
		return c.connect()
	}
	return c.dial(server)
}

// cmdClose is "close": the session ends, zkcli does not (commands then
// print "Not connected" until connect).
func cmdClose(c *client, o *options) error {
	if c.sess == nil {
		c.conn.Close()
		return nil
	}
	c.hangUp(true)
	return nil
}

// cmdQuit is "quit": zkcli ends with the previous command's status.
func cmdQuit(c *client, o *options) error {
	if c.sess == nil {
		c.conn.Close()
		return nil
	}
	c.hangUp(true)
	c.sess.quit = true
	return nil
}

// execute runs one typed line's words in a session, prints a failure as
// zkCli.sh does and returns the line's status: 0, 1 for a failure, 127 for
// an unknown command.
func (c *client) execute(words []string) int {
	if len(words) == 0 {
		return 0
	}
	name := words[0]
	cmd, ok := commands[name]
	if !ok {
		printCommands(c.errw)
		fmt.Fprintf(c.errw, "Command not found: Command not found %s\n", name)
		return 127
	}
	if unparsed[name] {
		return c.runUnparsed(cmd, words)
	}
	if !c.alive() {
		fmt.Fprintln(c.out, "Not connected")
		return 0
	}
	c.awaitCreds()
	o, err := parseOptions(cmd, words)
	if err == nil {
		err = cmd.run(c, o)
	}
	return c.status(err)
}

// runUnparsed runs one of the unparsed commands; one that did not fail
// then says "Not connected" on a closed session.
func (c *client) runUnparsed(cmd *command, words []string) int {
	err := cmd.run(c, &options{name: words[0], set: map[byte]string{}, args: words})
	if c.sess.quit {
		return 0
	}
	if err == nil && !c.alive() {
		fmt.Fprintln(c.out, "Not connected")
	}
	return c.status(err)
}

// status prints err, if any, on standard error and returns the status.
func (c *client) status(err error) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(c.errw, err)
	return 1
}

// cmdVersion is "version": zkcli's version in zkCli.sh's words (the
// ZooKeeper release zkraft follows, then zkraft's own version).
func cmdVersion(c *client, o *options) error {
	fmt.Fprintln(c.out, "ZooKeeper CLI version: "+buildinfo.Line())
	return nil
}
