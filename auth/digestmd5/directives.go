package digestmd5

import "errors"

// ErrDirective is the parser's error.
var ErrDirective = errors.New("digestmd5: malformed directive list")

// ParseDirectives splits an RFC 2831 directive list the way the JDK's
// DigestMD5Base.parseDirectives does, returning one value per name in keys
// (nil when absent, non-nil and possibly empty when present).
//
// Names match keys ignoring ASCII case and unknown names are skipped. A
// value is a quoted string, in which a backslash escapes the next byte, or
// a run of bytes up to linear white space or a comma. Empty list elements
// are allowed. A name given twice, a missing "=", an empty name, a name
// holding a comma, a missing value, an unterminated quoted string and
// anything but a separator after a closing quote are errors.
func ParseDirectives(buf []byte, keys []string) ([][]byte, error) {
	vals := make([][]byte, len(keys))
	i := skipLWS(buf, 0)
	for i < len(buf) {
		if buf[i] == ',' {
			i = skipLWS(buf, i+1)
			continue
		}
		var err error
		i, err = parseDirective(buf, i, keys, vals)
		if err != nil {
			return nil, err
		}
	}
	return vals, nil
}

// parseDirective reads one name[=value] element starting at a name and
// returns the index after its separator and any white space.
func parseDirective(buf []byte, i int, keys []string, vals [][]byte) (int, error) {
	start := i
	for i < len(buf) && buf[i] != '=' && buf[i] != ',' && !isLWS(buf[i]) {
		i++
	}
	key := buf[start:i]
	if i < len(buf) && isLWS(buf[i]) {
		if i = skipLWS(buf, i); i == len(buf) || buf[i] != '=' {
			return 0, ErrDirective // "'=' expected after key"
		}
	}
	if i == len(buf) {
		// A trailing name without "=" counts as an empty value.
		return i, store(keys, vals, key, []byte{})
	}
	if buf[i] == ',' || len(key) == 0 {
		return 0, ErrDirective
	}
	if i = skipLWS(buf, i+1); i == len(buf) {
		return 0, ErrDirective // valueless directive
	}
	val, i, err := parseValue(buf, i)
	if err != nil {
		return 0, err
	}
	if err := store(keys, vals, key, val); err != nil {
		return 0, err
	}
	if i < len(buf) {
		i = skipLWS(buf, i+1) // the separator, then white space
	}
	return i, nil
}

// parseValue reads a quoted or bare value at i and returns it with the
// index of the separator after it (or len(buf)).
func parseValue(buf []byte, i int) ([]byte, int, error) {
	if buf[i] != '"' {
		start := i
		for i < len(buf) && buf[i] != ',' && !isLWS(buf[i]) {
			i++
		}
		return append([]byte{}, buf[start:i]...), i, nil
	}
	val := []byte{}
	for i++; i < len(buf); i++ {
		switch buf[i] {
		case '\\':
			if i++; i == len(buf) {
				return nil, 0, ErrDirective
			}
			val = append(val, buf[i])
		case '"':
			i++
			if i < len(buf) && buf[i] != ',' && !isLWS(buf[i]) {
				return nil, 0, ErrDirective
			}
			return val, i, nil
		default:
			val = append(val, buf[i])
		}
	}
	return nil, 0, ErrDirective // unterminated quoted string
}

// store files val under key's slot, refusing a second value.
func store(keys []string, vals [][]byte, key, val []byte) error {
	for j, k := range keys {
		if !equalFoldASCII(key, k) {
			continue
		}
		if vals[j] != nil {
			return ErrDirective
		}
		vals[j] = val
		return nil
	}
	return nil
}

// isLWS is the JDK's byte-wise test for linear white space.
func isLWS(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\n'
}

func skipLWS(buf []byte, i int) int {
	for i < len(buf) && isLWS(buf[i]) {
		i++
	}
	return i
}

func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		if lowerASCII(b[i]) != lowerASCII(s[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// QuoteValue escapes a quoted-string value as the JDK's
// writeQuotedStringValue does: '"', '\\', DEL and control characters other
// than CR, LF and HT get a backslash.
func QuoteValue(s string) []byte {
	out := make([]byte, 0, len(s)+2)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c == 127 || (c < 32 && c != '\r' && c != '\n' && c != '\t') {
			out = append(out, '\\')
		}
		out = append(out, c)
	}
	return out
}
