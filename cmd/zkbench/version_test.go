package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"
)

// TestVersionFlag checks that -version prints the version line every zkraft
// command prints, and runs nothing.
func TestVersionFlag(t *testing.T) {
	var out, errw bytes.Buffer
	code := realMain(context.Background(), []string{"-version"}, &out, &errw)
	want := regexp.MustCompile(`^zkbench 3\.8\.0-zkraft[A-Za-z0-9.-]*, built on \d\d/\d\d/\d\d\d\d \d\d:\d\d GMT\n$`)
	if code != 0 || !want.MatchString(out.String()) || errw.Len() > 0 {
		t.Fatalf("zkbench -version: exit %d, stdout %q, stderr %q", code, out.String(), errw.String())
	}
}
