package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestVersion checks -version and zkCli.sh's version command, which runs
// without a server (the address here has nothing listening).
func TestVersion(t *testing.T) {
	line := `3\.8\.0-zkraft[A-Za-z0-9.-]*, built on \d\d/\d\d/\d\d\d\d \d\d:\d\d GMT\n$`
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-version"}, `^zkcli ` + line},
		{[]string{"-server", "127.0.0.1:1", "version"}, `^ZooKeeper CLI version: ` + line},
	} {
		var out, errw bytes.Buffer
		code := runWith(c.args, strings.NewReader(""), &out, &errw)
		if code != 0 || !regexp.MustCompile(c.want).MatchString(out.String()) || errw.Len() > 0 {
			t.Errorf("zkcli %q: exit %d, stdout %q, stderr %q; want exit 0 and %s", c.args, code, out.String(), errw.String(), c.want)
		}
	}
}
