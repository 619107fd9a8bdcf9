package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAgainstZkraft checks zkcli's output and exit status, command by
// command, against an in-process zkraft server; it needs no Java.
func TestAgainstZkraft(t *testing.T) {
	addr := startZkraft(t)
	for _, tc := range []struct {
		args string
		want string
		code int
	}{
		{"create /t hello", "Created /t\n", 0},
		{"create /t x", "Node already exists: /t\n", 1},
		{"create /x/y", "Node does not exist: /x/y\n", 1},
		{"create -s /t/s d", "Created /t/s0000000000\n", 0},
		{"create /t/e", "Created /t/e\n", 0},
		{"ls /t", "[e, s0000000000]\n", 0},
		{"ls -R /t", "/t\n/t/e\n/t/s0000000000\n", 0},
		{"get /t", "hello\n", 0},
		{"get /t/e", "null\n", 0},
		{"get /nope", "Node does not exist: /nope\n", 1},
		{"set -s -v 0 /t bye", "cZxid = 0xZXID\nctime = TIME\nmZxid = 0xZXID\nmtime = TIME\npZxid = 0xZXID\n" +
			"cversion = 2\ndataVersion = 1\naclVersion = 0\nephemeralOwner = 0x0\ndataLength = 3\nnumChildren = 2\n", 0},
		{"set -v 0 /t again", "version No is not valid : /t\n", 1},
		{"stat /nope", "Node does not exist: /nope\n", 1},
		{"getAcl /t", "'world,'anyone\n: cdrwa\n", 0},
		{"setAcl /t/e world:anyone:rw,ip:127.0.0.1:a", "", 0},
		{"getAcl /t/e", "'world,'anyone\n: rw\n'ip,'127.0.0.1\n: a\n", 0},
		{"delete /t", "Node not empty: /t\n", 1},
		{"sync /t", "Sync is OK\n", 0},
		{"getAllChildrenNumber /t", "2\n", 0},
		{"getEphemerals", "[]\n", 0},
		{"deleteall /t", "", 0},
		{"ls /t", "Node does not exist: /t\n", 1},
		{"get t", "Path must start with / character\n", 1},
		{"get", "get [-s] [-w] path\n", 1},
		{"get -x /", "org.apache.commons.cli.UnrecognizedOptionException: Unrecognized option: -x\n", 1},
	} {
		got, code := zkcli(t, addr, strings.Fields(tc.args)...)
		if got = normalise(got, "\x00"); got != tc.want || code != tc.code {
			t.Errorf("zkcli %s: exit %d, output\n%s\nwant exit %d, output\n%s", tc.args, code, got, tc.code, tc.want)
		}
	}
}

// TestStreams checks that the command's output goes to standard output
// and zkCli.sh's messages to standard error, and the exit statuses of an
// unknown command and of a server that cannot be reached.
func TestStreams(t *testing.T) {
	addr := startZkraft(t)
	out, errOut, code := zkcliSplit(t, addr, "create", "/n", "v")
	if out != "" || errOut != "Created /n\n" || code != 0 {
		t.Errorf("create: stdout %q stderr %q exit %d", out, errOut, code)
	}
	out, errOut, code = zkcliSplit(t, addr, "get", "/n")
	if out != "v\n" || errOut != "" || code != 0 {
		t.Errorf("get: stdout %q stderr %q exit %d", out, errOut, code)
	}
	out, errOut, code = zkcliSplit(t, addr, "get", "/none")
	if out != "" || errOut != "Node does not exist: /none\n" || code != 1 {
		t.Errorf("get missing: stdout %q stderr %q exit %d", out, errOut, code)
	}
	out, errOut, code = zkcliSplit(t, addr, "bogus")
	if out != "" || !strings.HasSuffix(errOut, "Command not found: Command not found bogus\n") || code != 127 {
		t.Errorf("bogus: stdout %q stderr %q exit %d", out, errOut, code)
	}
	_, errOut, code = zkcliSplit(t, "127.0.0.1:1", "-timeout", "300ms", "ls", "/")
	if code != 1 || !strings.HasPrefix(errOut, "Unable to connect to 127.0.0.1:1") {
		t.Errorf("unreachable server: stderr %q exit %d", errOut, code)
	}
}

// TestAuth checks that -auth and a leading addauth give the command the
// credentials, and that without them the node stays closed.
func TestAuth(t *testing.T) {
	addr := startZkraft(t)
	acl := "digest:" + digestID("u", "p") + ":cdrwa"
	if got, code := zkcli(t, addr, "create", "/s", "secret", acl); code != 0 {
		t.Fatalf("create: %s", got)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "/s"}, "Insufficient permission : /s\n"},
		{[]string{"-auth", "digest:u:p", "get", "/s"}, "secret\n"},
		{[]string{"addauth", "digest", "u:p", "get", "/s"}, "secret\n"},
		{[]string{"-auth", "digest:u:wrong", "get", "/s"}, "Insufficient permission : /s\n"},
		{[]string{"-auth", "digest:u:p", "getAllChildrenNumber", "/s"}, "0\n"},
		{[]string{"addauth", "digest", "u:p"}, ""},
	} {
		if got, _ := zkcli(t, addr, tc.args...); got != tc.want {
			t.Errorf("zkcli %q: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestJSON checks --json for ls, ls -R, get and stat.
func TestJSON(t *testing.T) {
	addr := startZkraft(t)
	zkcli(t, addr, "create", "/j", "data")
	zkcli(t, addr, "create", "/j/a")
	zkcli(t, addr, "create", "/j/b", "\xff")

	var ls jsonLs
	decode(t, addr, &ls, "--json", "ls", "/j")
	if ls.Path != "/j" || strings.Join(ls.Children, ",") != "a,b" || ls.Stat == nil || ls.Stat.NumChildren != 2 {
		t.Errorf("ls --json: %+v", ls)
	}
	var tree jsonTree
	decode(t, addr, &tree, "--json", "ls", "-R", "/j")
	if strings.Join(tree.Paths, ",") != "/j,/j/a,/j/b" {
		t.Errorf("ls -R --json: %+v", tree)
	}
	var g jsonGet
	decode(t, addr, &g, "--json", "get", "/j")
	if g.Data == nil || *g.Data != "data" || g.Stat.DataLength != 4 {
		t.Errorf("get --json: %+v", g)
	}
	g = jsonGet{}
	decode(t, addr, &g, "--json", "get", "/j/a")
	if g.Data != nil || g.DataBase64 != "" {
		t.Errorf("get --json of a node without data: %+v", g)
	}
	g = jsonGet{}
	decode(t, addr, &g, "--json", "get", "/j/b")
	if g.Data != nil || g.DataBase64 != "/w==" {
		t.Errorf("get --json of binary data: %+v", g)
	}
	var st jsonStatOnly
	decode(t, addr, &st, "--json", "stat", "/j")
	if st.Path != "/j" || st.Stat == nil || st.Stat.Czxid == 0 || st.Stat.Ctime == 0 {
		t.Errorf("stat --json: %+v", st)
	}
	if got, code := zkcli(t, addr, "--json", "get", "/none"); code != 1 || got != "Node does not exist: /none\n" {
		t.Errorf("get --json of a missing node: exit %d, %q", code, got)
	}
}

func decode(t *testing.T, addr string, v any, args ...string) {
	t.Helper()
	out, errOut, code := zkcliSplit(t, addr, args...)
	if code != 0 || errOut != "" {
		t.Fatalf("zkcli %q: exit %d, stderr %q", args, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("zkcli %q: %v in %q", args, err, out)
	}
}
