package jaas

import (
	"sort"
	"strings"
)

// tokKind is what java.io.StreamTokenizer, as ConfigFile sets it up,
// makes of the input.
type tokKind int

const (
	tEOF    tokKind = iota
	tWord           // a bare word
	tQuoted         // a "..." or '...' string (quote says which)
	tNumber         // digits, ".", a leading "-": never valid in a file
	tChar           // any other single character
)

type token struct {
	kind  tokKind
	text  string // word or string contents, number as written
	ch    rune   // tChar's character, tQuoted's quote
	start int    // rune offset, for the line number
}

// eof stands for the end of input where the tokenizer reads a character.
const eof = -1

type lexer struct {
	src        []rune
	pos        int
	lineStarts []int // rune offsets where lines 2, 3, ... start
}

func newLexer(s string) *lexer {
	l := &lexer{src: []rune(s)}
	for i, c := range l.src {
		if c == '\n' || (c == '\r' && (i+1 == len(l.src) || l.src[i+1] != '\n')) {
			l.lineStarts = append(l.lineStarts, i+1)
		}
	}
	return l
}

// line is the 1-based line of a rune offset; "\n", "\r" and "\r\n" end
// lines.
func (l *lexer) line(pos int) int {
	return 1 + sort.SearchInts(l.lineStarts, pos+1)
}

func (l *lexer) peek() rune {
	if l.pos >= len(l.src) {
		return eof
	}
	return l.src[l.pos]
}

func (l *lexer) read() rune {
	c := l.peek()
	if c != eof {
		l.pos++
	}
	return c
}

// next returns the next token, skipping white space and comments.
func (l *lexer) next() (token, error) {
	for {
		for c := l.peek(); c != eof && c <= ' '; c = l.peek() {
			l.pos++
		}
		start, c := l.pos, l.peek()
		switch {
		case c == eof:
			return token{kind: tEOF, start: start}, nil
		case isNumberStart(c):
			return l.number(), nil
		case isWordStart(c):
			return l.word(), nil
		case c == '"' || c == '\'':
			return l.quoted()
		case c == '/':
			l.comment()
		default:
			l.pos++
			return token{kind: tChar, ch: c, start: start}, nil
		}
	}
}

// isNumberStart: parseNumbers makes digits, "." and "-" numeric, and
// numeric wins over ConfigFile's wordChars('-', '-').
func isNumberStart(c rune) bool { return c >= '0' && c <= '9' || c == '.' || c == '-' }

// isWordStart is StreamTokenizer's word characters as ConfigFile sets
// them: letters, U+00A0 to U+00FF, "$", "_", "-", "*", and every character
// past U+00FF.
func isWordStart(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0xA0 ||
		c == '$' || c == '_' || c == '-' || c == '*'
}

// number reads a numeric token; a "-" not followed by a digit or "." is a
// character of its own.
func (l *lexer) number() token {
	start := l.pos
	if l.read() == '-' {
		if c := l.peek(); c != '.' && (c < '0' || c > '9') {
			return token{kind: tChar, ch: '-', start: start}
		}
	} else {
		l.pos--
	}
	dot := false
	for c := l.peek(); (c >= '0' && c <= '9') || (c == '.' && !dot); c = l.peek() {
		dot = dot || c == '.'
		l.pos++
	}
	return token{kind: tNumber, text: string(l.src[start:l.pos]), start: start}
}

func (l *lexer) word() token {
	start := l.pos
	for c := l.peek(); c != eof && (isWordStart(c) || isNumberStart(c)); c = l.peek() {
		l.pos++
	}
	return token{kind: tWord, text: string(l.src[start:l.pos]), start: start}
}

// comment skips a comment at "/".
func (l *lexer) comment() {
	l.pos++
	switch l.read() {
	case '*':
		prev := rune(0)
		for c := l.read(); c != '/' || prev != '*'; c = l.read() {
			if c == eof {
				return
			}
			prev = c
		}
	case eof:
	default:
		// "//", or "/" as a one-line comment character (the character
		// after it, even a newline, is already consumed).
		for c := l.peek(); c != eof && c != '\n' && c != '\r'; c = l.peek() {
			l.pos++
		}
	}
}

// quoted reads a quoted string with StreamTokenizer's escapes. A string
// must close on its line.
func (l *lexer) quoted() (token, error) {
	start := l.pos
	q := l.read()
	var b strings.Builder
	for {
		switch c := l.read(); c {
		case q:
			return token{kind: tQuoted, text: b.String(), ch: q, start: start}, nil
		case eof, '\n', '\r':
			return token{}, &LineError{Line: l.line(start), Msg: "unterminated quoted string", Err: ErrSyntax}
		case '\\':
			b.WriteRune(l.escape())
		default:
			b.WriteRune(c)
		}
	}
}

// escape reads what follows a backslash in a quoted string.
func (l *lexer) escape() rune {
	c := l.read()
	if c >= '0' && c <= '7' {
		return l.octal(c)
	}
	switch c {
	case 'a':
		return 0x7
	case 'b':
		return '\b'
	case 'f':
		return 0xC
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'v':
		return 0xB
	case eof:
		return 0xFFFF // (char) -1, as Java appends it
	}
	return c
}

// octal reads up to three octal digits, the third only after a first
// digit of 0 to 3.
func (l *lexer) octal(first rune) rune {
	v := first - '0'
	if c := l.peek(); c < '0' || c > '7' {
		return v
	}
	v = v<<3 + l.read() - '0'
	if c := l.peek(); first <= '3' && c >= '0' && c <= '7' {
		v = v<<3 + l.read() - '0'
	}
	return v
}
