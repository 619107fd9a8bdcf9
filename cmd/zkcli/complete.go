package main

import (
	"sort"
	"strings"

	"github.com/go-zookeeper/zk"
)

// completer completes the word before the cursor for readline: the first
// word of a line from the command names, a word starting with "/" from
// the children of its parent znode, read from the server. This is what
// zkCli.sh's JLineZNodeCompleter does, except that zkCli.sh offers
// command names for every word.
type completer struct{ c *client }

// Do implements readline.AutoCompleter.
func (k completer) Do(line []rune, pos int) ([][]rune, int) {
	cands, n := completeWord(string(line[:pos]), commandNames(), k.c.childrenForCompletion)
	out := make([][]rune, len(cands))
	for i, s := range cands {
		out[i] = []rune(s)
	}
	return out, n
}

// childrenForCompletion lists a znode's children, or none when the
// session is not connected.
func (c *client) childrenForCompletion(dir string) []string {
	if !c.alive() || c.conn.State() != zk.StateHasSession {
		return nil
	}
	children, _, err := c.conn.Children(dir)
	if err != nil {
		return nil
	}
	return children
}

// commandNames returns the commands' names, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// completeWord completes the last word of head (the line up to the
// cursor). It returns what each candidate adds after that word, sorted,
// and how many characters (runes) of the word the candidates share: the
// whole word for a command, the last path element for a znode. A
// completed command gets a space after it; a completed path does not, so
// "/" and Tab go on to its children.
func completeWord(head string, names []string, children func(dir string) []string) ([]string, int) {
	word := head[strings.LastIndexAny(head, " \t")+1:]
	first := strings.TrimLeft(head, " \t") == word
	var out []string
	switch {
	case strings.HasPrefix(word, "/"):
		slash := strings.LastIndex(word, "/")
		dir, prefix := word[:slash], word[slash+1:]
		if dir == "" {
			dir = "/"
		}
		kids := children(dir)
		sort.Strings(kids)
		for _, k := range kids {
			if strings.HasPrefix(k, prefix) {
				out = append(out, k[len(prefix):])
			}
		}
		return out, len([]rune(prefix))
	case first:
		for _, n := range names {
			if strings.HasPrefix(n, word) {
				out = append(out, n[len(word):]+" ")
			}
		}
		return out, len([]rune(word))
	}
	return nil, 0
}
