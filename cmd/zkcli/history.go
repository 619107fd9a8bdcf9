package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Two histories. The numbered one is zkCli.sh's: the lines typed in this
// session, numbered from 0 as the prompt counts them, listed by history
// and replayed by redo N. The recall history is for the line editor (up
// arrow, Ctrl-R): it outlives the session in a file, which zkCli.sh does
// not have (jline keeps its history in memory there).

// cmdHistory is a numbered line of the session.
type cmdHistory struct {
	lines map[int]string
	count int // the number of the next line, shown in the prompt
}

func newCmdHistory() *cmdHistory { return &cmdHistory{lines: map[int]string{}} }

// add records the line about to run as number count.
func (h *cmdHistory) add(line string) { h.lines[h.count] = line }

// list writes the last ten lines and the current one as zkCli.sh's
// history does ("N - line"; "null" for a number with no line, which only
// one-shot mode shows).
func (h *cmdHistory) list(w io.Writer) {
	for i := max(h.count-10, 0); i <= h.count; i++ {
		line, ok := h.lines[i]
		if !ok {
			line = "null"
		}
		fmt.Fprintf(w, "%d - %s\n", i, line)
	}
}

// Redo's errors, with zkCli.sh's messages.
var (
	errRedoRange = errors.New("Command index out of range")
	errRedoRedo  = errors.New("No redoing redos")
)

// redo returns the words of line number arg (a number as Java's
// Integer.decode reads it: decimal, 0x or # hexadecimal, 0 octal) and
// records them as the current line, in place of "redo N".
func (h *cmdHistory) redo(arg string) ([]string, error) {
	n, err := javaDecode(arg)
	if err != nil {
		return nil, err
	}
	if n < 0 || int64(h.count) <= n {
		return nil, errRedoRange
	}
	line := h.lines[int(n)]
	words := splitLine(line)
	if len(words) > 0 && words[0] == "redo" {
		return nil, errRedoRedo
	}
	h.lines[h.count] = line
	return words, nil
}

// javaDecode parses s as java.lang.Integer.decode does.
func javaDecode(s string) (int64, error) {
	bad := fmt.Errorf("For input string: \"%s\"", s)
	body, neg := s, false
	if body != "" && (body[0] == '-' || body[0] == '+') {
		neg, body = body[0] == '-', body[1:]
	}
	base := 10
	switch {
	case strings.HasPrefix(body, "0x"), strings.HasPrefix(body, "0X"):
		base, body = 16, body[2:]
	case strings.HasPrefix(body, "#"):
		base, body = 16, body[1:]
	case len(body) > 1 && body[0] == '0':
		base, body = 8, body[1:]
	}
	if body == "" || body[0] == '-' || body[0] == '+' {
		return 0, bad
	}
	n, err := strconv.ParseInt(body, base, 32)
	if err != nil {
		return 0, bad
	}
	if neg {
		n = -n
	}
	return n, nil
}

// historyLimit is how many lines the recall history file keeps.
const historyLimit = 1000

// historyFile returns the recall history's file: $ZKCLI_HISTORY when set
// (set and empty: no file), else ~/.zkcli_history; "" when there is none.
func historyFile() string {
	if p, ok := os.LookupEnv("ZKCLI_HISTORY"); ok {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".zkcli_history")
}

// keepInHistory reports whether line goes into the recall history: not a
// blank line, and not an addauth line, which holds a password.
func keepInHistory(line string) bool {
	words := splitLine(line)
	return strings.TrimSpace(line) != "" && (len(words) == 0 || words[0] != "addauth")
}

// prepareHistory makes sure the recall history file exists, readable by
// its owner only (lines may hold data typed into commands), and holds at
// most limit lines, keeping the last ones; the line editor then reads it
// and appends to it.
func prepareHistory(path string, limit int) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			lines = append(lines, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(lines) <= limit {
		return nil
	}
	tmp := path + ".tmp"
	err = os.WriteFile(tmp, []byte(strings.Join(lines[len(lines)-limit:], "\n")+"\n"), 0o600)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	return err
}
