package main

import (
	"bufio"
	"io"
	"os"
	"strings"

	"github.com/chzyer/readline"
)

// terminal reads lines from a terminal with chzyer/readline: Emacs-style
// line editing, Tab completion of command names and znode paths, recall
// (up arrow, Ctrl-R) of earlier lines, kept across runs in the history
// file. Ctrl-C drops the line being typed; Ctrl-D on an empty line ends
// the input.
type terminal struct {
	rl *readline.Instance
}

// plainReader reads lines from a pipe or file, with no prompt.
type plainReader struct {
	r *bufio.Reader
}

// isTerminal reports whether f is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && readline.IsTerminal(int(file.Fd()))
}

// openTerminal returns the session's line reader and the writers it is to
// print through: readline's, which redraw the prompt, when both in and
// stdout are terminals; a plain reader and stdout and stderr as they are
// otherwise.
func openTerminal(c *client, in io.Reader, stdout, stderr io.Writer) (lineReader, io.Writer, io.Writer) {
	plain := &plainReader{bufio.NewReader(in)}
	if !isTerminal(in) || !isTerminal(stdout) {
		return plain, stdout, stderr
	}
	hist := historyFile()
	if hist != "" && prepareHistory(hist, historyLimit) != nil {
		hist = ""
	}
	rl, err := readline.NewEx(&readline.Config{
		HistoryFile:            hist,
		HistoryLimit:           historyLimit,
		DisableAutoSaveHistory: true,
		AutoComplete:           completer{c},
		Stdin:                  readline.NewCancelableStdin(in),
		Stdout:                 stdout,
		Stderr:                 stderr,
	})
	if err != nil {
		return plain, stdout, stderr
	}
	return &terminal{rl}, rl.Stdout(), rl.Stderr()
}

func (t *terminal) readLine(prompt string) (string, error) {
	t.rl.SetPrompt(prompt)
	line, err := t.rl.Readline()
	if err == readline.ErrInterrupt {
		return "", errInterrupted
	}
	return line, err
}

// typed records line for recall; an addauth line is left out (the empty
// save resets readline's place in the history).
func (t *terminal) typed(line string) {
	if !keepInHistory(line) {
		line = ""
	}
	t.rl.SaveHistory(line)
}

func (t *terminal) close() { t.rl.Close() }

// readLine returns the next line without "\n" or "\r\n", as Java's
// BufferedReader.readLine; a last line without an end of line counts.
func (p *plainReader) readLine(string) (string, error) {
	line, err := p.r.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	line = strings.TrimSuffix(line, "\n")
	return strings.TrimSuffix(line, "\r"), nil
}

func (p *plainReader) typed(string) {}
func (p *plainReader) close()       {}
