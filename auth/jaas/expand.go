package jaas

import (
	"errors"
	"os"
	"strings"
)

// expand replaces ${name} in a non-empty value the way the JDK's
// PropertyExpander does for ConfigFile: ${/} is the path separator,
// ${{...}} stays as written, a "${" without a closing "}" stays as
// written, and an undefined name is an error. A nil lookup expands
// nothing. A value that expands to "" is an error, as in ConfigFile.
func expand(v string, lookup func(string) (string, bool)) (string, error) {
	if v == "" || lookup == nil || !strings.Contains(v, "${") {
		return v, nil
	}
	var b strings.Builder
	for {
		p := strings.Index(v, "${")
		if p < 0 {
			b.WriteString(v)
			break
		}
		b.WriteString(v[:p])
		rest, err := expandOne(&b, v[p:], lookup)
		if err != nil {
			return "", err
		}
		if v = rest; v == "" {
			break
		}
	}
	if b.Len() == 0 {
		return "", errors.New("value expands to nothing")
	}
	return b.String(), nil
}

// expandOne writes the expansion of the reference at the start of v and
// returns what follows it ("" when nothing is left to expand).
func expandOne(b *strings.Builder, v string, lookup func(string) (string, bool)) (string, error) {
	if strings.HasPrefix(v, "${{") {
		end := strings.Index(v[2:], "}}")
		if end < 0 || 2+end+2 == len(v) {
			b.WriteString(v)
			return "", nil
		}
		b.WriteString(v[:2+end+2])
		return v[2+end+2:], nil
	}
	end := strings.IndexByte(v, '}')
	if end < 0 {
		b.WriteString(v)
		return "", nil
	}
	name := v[2:end]
	if name == "/" {
		b.WriteByte(os.PathSeparator)
		return v[end+1:], nil
	}
	val, ok := lookup(name)
	if !ok || name == "" {
		return "", errors.New("cannot expand ${" + name + "}: undefined")
	}
	b.WriteString(val)
	return v[end+1:], nil
}
