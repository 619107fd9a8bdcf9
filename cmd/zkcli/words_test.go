package main

import (
	"reflect"
	"testing"
)

// TestSplitLine checks zkCli.sh's word splitting, quirks included.
func TestSplitLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"ls /", []string{"ls", "/"}},
		{"  ls   /a  ", []string{"ls", "/a"}},
		{"set /x \"two words\"", []string{"set", "/x", "two words"}},
		{"set /x 'it is'", []string{"set", "/x", "it is"}},
		{"set /x a\"b c\"", []string{"set", "/x", "a\"b", "c\""}},
		{"set /x \"open", []string{"set", "/x", "open"}},
		{"create /x ''", []string{"create", "/x", ""}},
		{"ls\t/", []string{"ls", "/"}},
		{"   ", []string{" "}},
		{"\"", nil},
	} {
		if got := splitLine(tc.line); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitLine(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}
