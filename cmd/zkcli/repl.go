package main

import (
	"errors"
	"fmt"
	"io"
)

// lineReader reads a session's lines: from a terminal with line editing
// (terminal.go) or plainly from a pipe or file.
type lineReader interface {
	// readLine returns the next line without its end of line; io.EOF at
	// the end of the input, errInterrupted when Ctrl-C dropped the line.
	readLine(prompt string) (string, error)
	// typed records a line that ran, for recall.
	typed(line string)
	close()
}

// errInterrupted is a line dropped by Ctrl-C.
var errInterrupted = errors.New("interrupted")

// repl runs an interactive session, zkCli.sh without a command: lines from
// in (a terminal gets the prompt, line editing, completion and a history
// file; other input is read line by line with no prompt), one command
// each, until quit or the end of the input. It returns the last command's
// status, as zkCli.sh exits with it.
func (c *client) repl(in io.Reader, stdout, stderr io.Writer) int {
	s := newSession()
	c.sess = s
	lr, out, errw := openTerminal(c, in, stdout, stderr)
	t, interactive := lr.(*terminal)
	var redraw func()
	if interactive {
		// The state an event reports shows in the prompt redrawn under it.
		redraw = func() { t.rl.SetPrompt(c.prompt()) }
	}
	s.con = newConsole(out, errw, func() bool { return !s.printWatches.Load() }, redraw)
	defer s.con.stop()
	c.out, c.errw = s.con.stdout(), s.con.stderr()
	if interactive {
		fmt.Fprintf(c.out, "Connecting to %s\nWelcome to ZooKeeper!\n", c.server)
	}
	if err := c.dial(c.server); err != nil {
		fmt.Fprintln(c.errw, err)
	}
	if !interactive {
		// No banner for scripts: the first connection's event is dropped,
		// so the output is the commands' own.
		s.con.drop()
	}
	defer lr.close()
	defer c.hangUp(false)
	for !s.quit {
		s.con.setBusy(false)
		line, err := lr.readLine(c.prompt())
		s.con.setBusy(true)
		if errors.Is(err, errInterrupted) {
			continue
		}
		if err != nil {
			break
		}
		c.executeLine(line, lr)
	}
	s.con.setBusy(false) // what quit printed
	return s.exitCode
}

// executeLine runs one line as zkCli.sh does: an empty line is skipped;
// any other is numbered, recorded and run, and its status kept.
func (c *client) executeLine(line string, lr lineReader) {
	if line == "" {
		return
	}
	s := c.sess
	lr.typed(line)
	s.hist.add(line)
	code := c.execute(splitLine(line))
	if !s.quit {
		s.exitCode = code
	}
	s.hist.count++
}
