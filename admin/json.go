package admin

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Object is a JSON object whose keys keep their insertion order, as the
// Java LinkedHashMap behind ZooKeeper's command responses.
type Object []Field

// Field is one key of an Object.
type Field struct {
	Key   string
	Value any
}

// Put sets key to v: in place when the key is present (a LinkedHashMap
// keeps the first position), else at the end.
func (o *Object) Put(key string, v any) {
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, Field{key, v})
}

// Get returns key's value and whether it is present.
func (o Object) Get(key string) (any, bool) {
	for _, f := range o {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// MarshalPretty encodes v as Jackson's default pretty printer does, which
// is what ZooKeeper's AdminServer writes: objects one "key" : value per
// line indented by two spaces per level, arrays on one line ("[ 1, 2 ]",
// "[ ]") unless they hold objects, empty objects "{ }", doubles as Java
// prints them, no newline at the end. v may be nil, a bool, a string, an
// integer, a float, an Object or a slice of those.
func MarshalPretty(v any) []byte {
	var b bytes.Buffer
	writeValue(&b, v, 0)
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, level int) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		writeString(b, x)
	case int:
		b.WriteString(strconv.Itoa(x))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	case float64:
		writeDouble(b, x)
	case Object:
		writeObject(b, x, level)
	case []any:
		writeArray(b, len(x), func(i int) any { return x[i] }, level)
	case []Object:
		writeArray(b, len(x), func(i int) any { return x[i] }, level)
	case []string:
		// Strings and integers are written without boxing each element
		// in an interface: the watches commands write a million of them.
		writeFlatArray(b, len(x), func(i int) { writeString(b, x[i]) })
	case []int64:
		writeFlatArray(b, len(x), func(i int) { b.Write(strconv.AppendInt(b.AvailableBuffer(), x[i], 10)) })
	case []int:
		writeArray(b, len(x), func(i int) any { return x[i] }, level)
	default:
		writeString(b, fmt.Sprint(x))
	}
}

func writeObject(b *bytes.Buffer, o Object, level int) {
	if len(o) == 0 {
		b.WriteString("{ }")
		return
	}
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		newline(b, level+1)
		writeString(b, f.Key)
		b.WriteString(" : ")
		writeValue(b, f.Value, level+1)
	}
	newline(b, level)
	b.WriteByte('}')
}

// writeArray writes n elements on one line; objects inside keep the
// array's level, as Jackson's arrays indent with a single space.
func writeArray(b *bytes.Buffer, n int, elem func(int) any, level int) {
	if n == 0 {
		b.WriteString("[ ]")
		return
	}
	b.WriteString("[ ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(b, elem(i), level)
	}
	b.WriteString(" ]")
}

// writeFlatArray is writeArray for elements that are not objects, each
// written by elem.
func writeFlatArray(b *bytes.Buffer, n int, elem func(i int)) {
	if n == 0 {
		b.WriteString("[ ]")
		return
	}
	b.WriteString("[ ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		elem(i)
	}
	b.WriteString(" ]")
}

func newline(b *bytes.Buffer, level int) {
	b.WriteByte('\n')
	b.WriteString(strings.Repeat("  ", level))
}

// writeString writes s quoted with Jackson's escapes: quote, backslash
// and control characters; everything else as UTF-8.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	if !needsEscape(s) {
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c < 0x20:
			fmt.Fprintf(b, `\u%04X`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// needsEscape reports whether writeString must escape a byte of s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return true
		}
	}
	return false
}

// writeDouble writes f as Java's Double.toString: plain with at least
// one fraction digit in [1e-3, 1e7), else "d.dddE±n" without a plus sign;
// NaN and the infinities quoted, as Jackson quotes non-numeric numbers.
func writeDouble(b *bytes.Buffer, f float64) {
	switch {
	case math.IsNaN(f):
		b.WriteString(`"NaN"`)
		return
	case math.IsInf(f, 1):
		b.WriteString(`"Infinity"`)
		return
	case math.IsInf(f, -1):
		b.WriteString(`"-Infinity"`)
		return
	}
	b.WriteString(JavaDouble(f))
}

// JavaDouble formats f as Java's Double.toString does.
func JavaDouble(f float64) string {
	if a := math.Abs(f); f == 0 || (a >= 1e-3 && a < 1e7) {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, 64) // 1.5E+07, 1E-05
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	n, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(n)
}
