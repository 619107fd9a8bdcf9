package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParseConnString checks the connect strings zkCli.sh's
// ConnectStringParser takes, and its messages for those it refuses (as
// ZooKeeper 3.8's zkCli.sh prints them in its exception).
func TestParseConnString(t *testing.T) {
	for _, tc := range []struct {
		in      string
		servers []string
		chroot  string
		err     string
	}{
		{in: "127.0.0.1:2181", servers: []string{"127.0.0.1:2181"}},
		{in: "h1:1,h2:2,h3:3", servers: []string{"h1:1", "h2:2", "h3:3"}},
		{in: "zk.example", servers: []string{"zk.example:2181"}},
		{in: "h1,h2:2182", servers: []string{"h1:2181", "h2:2182"}},
		{in: "h1:", servers: []string{"h1:2181"}}, // Java ignores a ':' at the end
		{in: " h1:1 , ,h2:2,", servers: []string{"h1:1", "h2:2"}},
		{in: ":2181", servers: []string{"127.0.0.1:2181"}}, // an empty host is the loopback
		{in: "[::1]", servers: []string{"[::1]:2181"}},
		{in: "[::1]:2182", servers: []string{"[::1]:2182"}},
		{in: "[fe80::1%lo]:2182,127.0.0.1", servers: []string{"[fe80::1%lo]:2182", "127.0.0.1:2181"}},
		{in: "h1:1,h2:2/app", servers: []string{"h1:1", "h2:2"}, chroot: "/app"},
		{in: "h1/app/sub", servers: []string{"h1:2181"}, chroot: "/app/sub"},
		{in: "[::1]:3/app", servers: []string{"[::1]:3"}, chroot: "/app"},
		{in: "h1:1/", servers: []string{"h1:1"}}, // "/" alone: no chroot
		// Errors, in ZooKeeper's words.
		{in: "h1:1//", err: "Path must not end with / character"},
		{in: "h1:1/a/", err: "Path must not end with / character"},
		{in: "h1:1/a//b", err: `Invalid path string "/a//b" caused by empty node name specified @3`},
		{in: "h1:1/a/.", err: `Invalid path string "/a/." caused by relative paths not allowed @3`},
		{in: "", err: "A HostProvider may not be empty!"},
		{in: " , ", err: "A HostProvider may not be empty!"},
		{in: "/app", err: "A HostProvider may not be empty!"},
		{in: "h1:abc", err: `For input string: "abc"`},
		{in: "h1:99999", err: "port out of range:99999"},
		{in: "h1:-1", err: "port out of range:-1"},
		{in: "h1:99999999999", err: `For input string: "99999999999"`},
		{in: "[::1", err: "[::1 starts with '[' but has no matching ']'"},
		{in: "[]:2181", err: " is empty."},
		{in: "[::1]x", err: "[::1]x does not have : after ]"},
		{in: "[::1]:", err: "[::1]: doesn't have a port after colon."},
	} {
		servers, chroot, err := parseConnString(tc.in)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case !slices.Equal(servers, tc.servers) || chroot != tc.chroot:
			t.Errorf("%q: %q chroot %q, want %q chroot %q", tc.in, servers, chroot, tc.servers, tc.chroot)
		}
	}
}

// TestChrootPaths checks the mapping of paths between the client and the
// server under a chroot, as Java's client does it.
func TestChrootPaths(t *testing.T) {
	z := &zkConn{chroot: "/app"}
	for client, server := range map[string]string{"/": "/app", "/x": "/app/x", "/x/y": "/app/x/y"} {
		if got := z.serverPath(client); got != server {
			t.Errorf("serverPath(%q) = %q, want %q", client, got, server)
		}
		if got := z.clientPath(server); got != client {
			t.Errorf("clientPath(%q) = %q, want %q", server, got, client)
		}
	}
	none := &zkConn{}
	if none.serverPath("/x") != "/x" || none.clientPath("/x") != "/x" {
		t.Error("without a chroot paths must stay as they are")
	}
}

// TestHostListSkipsUnresolved checks that a host whose name does not
// resolve is left out of the addresses tried, as Java's client skips it,
// and that the connection fails only when no host resolves.
func TestHostListSkipsUnresolved(t *testing.T) {
	h := &hostList{}
	if err := h.Init([]string{"nosuch.invalid:2181", "127.0.0.1:2182", "[::1]:2183"}); err != nil {
		t.Fatal(err)
	}
	if h.Len() != 2 {
		t.Fatalf("%d addresses, want 2: %q", h.Len(), h.addrs)
	}
	seen := map[string]bool{}
	for i := 0; i < 2; i++ {
		a, retry := h.Next()
		if retry {
			t.Errorf("retryStart at try %d", i+1)
		}
		seen[a] = true
	}
	if !seen["127.0.0.1:2182"] || !seen["[::1]:2183"] {
		t.Errorf("tried %v, want both addresses", seen)
	}
	if _, retry := h.Next(); !retry {
		t.Error("no retryStart once every address was tried")
	}
	if err := (&hostList{}).Init([]string{"nosuch.invalid:2181"}); err == nil {
		t.Error("a connect string whose hosts all fail to resolve must fail")
	}
}

// TestChrootExport checks that an export under a chroot names the
// client's paths, written in pieces of any size, and that import finds an
// export's root.
func TestChrootExport(t *testing.T) {
	in := `{"format":"zkraft-treejson","version":1,"root":"/app/w","nodes":[` + "\n" +
		`{"path":"/app/w","data":"L2FwcA==","acl":[{"perms":31,"scheme":"digest","id":"{\"path\":\"/app"}]}` + ",\n" +
		`{"path":"/app/w/c","data":null}` + "\n]}\n"
	want := `{"format":"zkraft-treejson","version":1,"root":"/w","nodes":[` + "\n" +
		`{"path":"/w","data":"L2FwcA==","acl":[{"perms":31,"scheme":"digest","id":"{\"path\":\"/app"}]}` + ",\n" +
		`{"path":"/w/c","data":null}` + "\n]}\n"
	for _, size := range []int{1, 7, len(in)} {
		var b strings.Builder
		e := &chrootExport{w: &b, chroot: "/app"}
		for s := in; s != ""; {
			n := min(size, len(s))
			e.Write([]byte(s[:n]))
			s = s[n:]
		}
		if err := e.flush(); err != nil || b.String() != want {
			t.Errorf("written %d bytes at a time: %v\n%s\nwant\n%s", size, err, b.String(), want)
		}
	}
	var b strings.Builder
	e := &chrootExport{w: &b, chroot: "/app"}
	e.Write([]byte(`{"format":"zkraft-treejson","version":1,"root":"/app","nodes":[` + "\n" + `{"path":"/app","data":null}`))
	e.flush()
	top := `{"format":"zkraft-treejson","version":1,"root":"/","nodes":[` + "\n" + `{"path":"/","data":null}`
	if b.String() != top {
		t.Errorf("the chroot's own root: %s, want %s", b.String(), top)
	}
	br := bufio.NewReader(strings.NewReader(want))
	if root := exportRoot(br); root != "/w" {
		t.Errorf("exportRoot = %q, want /w", root)
	}
	if rest, _ := io.ReadAll(br); string(rest) != want {
		t.Errorf("exportRoot consumed the document: %q left", rest)
	}
	if root := exportRoot(bufio.NewReader(strings.NewReader(`{"nodes":[],"root":"/x"}`))); root != "" {
		t.Errorf("exportRoot after nodes = %q, want none", root)
	}
}

// TestChrootExportImport exports and imports under a chroot: the file
// names the client's paths, and import puts the nodes under the chroot,
// at the export's root or at the path given.
func TestChrootExportImport(t *testing.T) {
	addr := startZkraft(t)
	app := addr + "/app"
	zkcli(t, addr, "create", "/app")
	for _, a := range [][]string{{"/ex", "root"}, {"/ex/a", "A"}} {
		if out, code := zkcli(t, app, append([]string{"create"}, a...)...); code != 0 {
			t.Fatalf("create %v: %s", a, out)
		}
	}
	file := filepath.Join(t.TempDir(), "ex.json")
	if out, code := zkcli(t, app, "export", "/ex", file); code != 0 {
		t.Fatalf("export: %s", out)
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), `"root":"/ex"`) || !strings.Contains(string(data), `{"path":"/ex/a"`) || strings.Contains(string(data), "/app") {
		t.Errorf("export under /app names the server's paths:\n%s", data)
	}
	if out, code := zkcli(t, app, "import", file, "/copy"); code != 0 {
		t.Fatalf("import to /copy: %s", out)
	}
	if got, _ := zkcli(t, addr, "get", "/app/copy/a"); got != "A\n" {
		t.Errorf("/app/copy/a after the import: %q", got)
	}
	zkcli(t, app, "deleteall", "/ex")
	if out, code := zkcli(t, app, "import", file); code != 0 {
		t.Fatalf("import: %s", out)
	}
	if got, _ := zkcli(t, addr, "get", "/app/ex/a"); got != "A\n" {
		t.Errorf("/app/ex/a after the import at the export's root: %q", got)
	}
}
