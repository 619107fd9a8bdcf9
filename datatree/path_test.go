package datatree

import (
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

var pathCases = []struct {
	path  string
	valid bool
}{
	{"/", true},
	{"/a", true},
	{"/a/b/c", true},
	{"/zookeeper", true},
	{"/a.b", true},
	{"/...", true},
	{"/a..", true},
	{"/..a", true},
	{"/.a", true},
	{"/a/.b/c..", true},
	{"/ü/日本語", true},
	{"/\u00a0", true}, // first char after the C1 range
	{"/\uf900", true}, // first char after the private-use range
	{"/\uffef", true}, // last char before the specials
	{"/with space", true},
	{"", false},
	{"a", false},
	{"a/b", false},
	{"//", false},
	{"/a/", false},
	{"/a//b", false},
	{"//a", false},
	{"/.", false},
	{"/..", false},
	{"/a/.", false},
	{"/a/..", false},
	{"/a/./b", false},
	{"/a/../b", false},
	{"/a\x00b", false},
	{"/a\x01", false},
	{"/a\x1f", false},
	{"/a\x7f", false},
	{"/a\u0080", false},
	{"/a\u009f", false},
	{"/a\ud7ff", true},
	{"/a\ue000", false}, // private use
	{"/a\uf8ff", false},
	{"/a\ufff0", false},
	{"/a\ufffd", false},
	{"/a\uffff", false},
	{"/a😀", false},    // outside the BMP: a surrogate pair in Java
	{"/a\xff", false}, // invalid UTF-8 decodes to U+FFFD
	{"/a\xed\xa0\x80", false},
	{"/\xc3", false},
}

func TestValidatePath(t *testing.T) {
	for _, c := range pathCases {
		err := ValidatePath(c.path)
		if c.valid {
			require.NoError(t, err, "%q", c.path)
		} else {
			require.Equal(t, wire.CodeBadArguments, err, "%q", c.path)
		}
		require.Equal(t, c.valid, javaValidatePath(c.path), "reference disagrees on %q", c.path)
	}
}

// javaValidatePath is a literal transcription of PathUtils.validatePath
// over the UTF-16 string Java would decode from the same bytes; it is the
// fuzzing oracle.
func javaValidatePath(s string) bool {
	var chars []uint16
	for _, r := range s { // invalid bytes become U+FFFD, as in Java
		chars = utf16.AppendRune(chars, r)
	}
	if len(chars) == 0 || chars[0] != '/' {
		return false
	}
	if len(chars) == 1 {
		return true
	}
	if chars[len(chars)-1] == '/' {
		return false
	}
	lastc := uint16('/')
	for i := 1; i < len(chars); lastc, i = chars[i], i+1 {
		c := chars[i]
		switch {
		case c == 0:
			return false
		case c == '/' && lastc == '/':
			return false
		case c == '.' && lastc == '.':
			if chars[i-2] == '/' && (i+1 == len(chars) || chars[i+1] == '/') {
				return false
			}
		case c == '.':
			if chars[i-1] == '/' && (i+1 == len(chars) || chars[i+1] == '/') {
				return false
			}
		case c > 0 && c <= 0x1f, c >= 0x7f && c <= 0x9f, c >= 0xd800 && c <= 0xf8ff, c >= 0xfff0:
			return false
		}
	}
	return true
}

func FuzzValidatePath(f *testing.F) {
	for _, c := range pathCases {
		f.Add(c.path)
	}
	f.Fuzz(func(t *testing.T, path string) {
		err := ValidatePath(path)
		want := javaValidatePath(path)
		if want != (err == nil) {
			t.Fatalf("ValidatePath(%q) = %v, Java rules say valid=%v", path, err, want)
		}
		if err != nil && err != wire.CodeBadArguments {
			t.Fatalf("unexpected error %v", err)
		}
		if err == nil && path != "/" {
			// A valid path can be created once its parent exists.
			parent, name, ok := splitPath(path)
			if !ok || name == "" || (parent != "" && ValidatePath(parent) != nil) {
				t.Fatalf("valid path %q has an invalid parent %q", path, parent)
			}
		}
	})
}

func TestSplitPath(t *testing.T) {
	for path, want := range map[string][2]string{
		"/a": {"", "a"}, "/a/b": {"/a", "b"}, "/": {"", ""}, "/a/": {"/a", ""}, "a/b": {"a", "b"},
	} {
		p, n, ok := splitPath(path)
		require.True(t, ok)
		require.Equal(t, want, [2]string{p, n}, path)
	}
	_, _, ok := splitPath("abc")
	require.False(t, ok)
}
