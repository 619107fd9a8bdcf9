package main

import "regexp"

// lineWord is zkCli.sh's pattern for one word of a typed line: a word that
// does not start with a quote, or a whole "double" or 'single' quoted
// string (which may hold spaces).
var lineWord = regexp.MustCompile(`\s*([^"']\S*|"[^"]*"|'[^']*')\s*`)

// splitLine breaks a typed line into words as zkCli.sh's parseCommand
// does, quotes removed from a word that is quoted as a whole. It keeps
// zkCli.sh's quirks: a quote with no closing one is skipped, and a line of
// blanks is one word (a blank), which is then an unknown command.
func splitLine(line string) []string {
	var words []string
	for _, m := range lineWord.FindAllStringSubmatch(line, -1) {
		w := m[1]
		if len(w) >= 2 && (w[0] == '"' || w[0] == '\'') && w[len(w)-1] == w[0] {
			w = w[1 : len(w)-1]
		}
		words = append(words, w)
	}
	return words
}
