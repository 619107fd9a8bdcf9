package server

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// This file reads java.util.Properties text, the syntax of zoo.cfg.

// property is one key/value pair of a properties file.
type property struct {
	key, value string
	line       int
}

// readProperties parses java.util.Properties text. Keys and values are
// trimmed; for a repeated key the last value wins, at its own position.
func readProperties(r io.Reader) ([]property, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	var all []property
	last := map[string]int{}
	lineNo := 0
	for sc.Scan() {
		lineNo++
		start := lineNo
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		for continued(line) && sc.Scan() {
			lineNo++
			line = line[:len(line)-1] + strings.TrimLeft(sc.Text(), " \t\f")
		}
		key, value := splitProperty(line)
		pr := property{key: strings.TrimSpace(key), value: strings.TrimSpace(value), line: start}
		last[pr.key] = len(all)
		all = append(all, pr)
	}
	props := make([]property, 0, len(last))
	for i, pr := range all {
		if last[pr.key] == i {
			props = append(props, pr)
		}
	}
	return props, sc.Err()
}

// continued reports whether line ends in an odd number of backslashes.
func continued(line string) bool {
	n := len(line) - len(strings.TrimRight(line, `\`))
	return n%2 == 1
}

// splitProperty splits a logical line at the first unescaped '=', ':' or
// whitespace, skipping whitespace and one separator, and unescapes both
// halves.
func splitProperty(line string) (key, value string) {
	end := len(line)
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' {
			i++
			continue
		}
		if strings.IndexByte("=: \t\f", line[i]) >= 0 {
			end = i
			break
		}
	}
	rest := strings.TrimLeft(line[end:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return unescape(line[:end]), unescape(rest)
}

// unescape resolves Properties escapes: \t \n \r \f, \uXXXX, and \x = x.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if r, err := strconv.ParseUint(s[i+1:min(i+5, len(s))], 16, 16); err == nil && i+5 <= len(s) {
				b.WriteRune(rune(r))
				i += 4
				continue
			}
			b.WriteByte('u')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
