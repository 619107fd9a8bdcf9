package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkraft/zkraft/internal/testlog"
)

// TestTree checks tree's drawing, -s and --json.
func TestTree(t *testing.T) {
	addr := startZkraft(t)
	for _, p := range []string{"/tr", "/tr/b", "/tr/a", "/tr/a/x", "/tr/a/y"} {
		zkcli(t, addr, "create", p, "d")
	}
	got, code := zkcli(t, addr, "tree", "/tr")
	want := "/tr\n├── a\n│   ├── x\n│   └── y\n└── b\n"
	if code != 0 || got != want {
		t.Errorf("tree /tr: exit %d\n%s\nwant\n%s", code, got, want)
	}
	got, _ = zkcli(t, addr, "tree", "-s", "/tr/a")
	want = "/tr/a [1 bytes, 2 children]\n├── x [1 bytes, 0 children]\n└── y [1 bytes, 0 children]\n"
	if got != want {
		t.Errorf("tree -s /tr/a:\n%s\nwant\n%s", got, want)
	}
	var root treeNode
	decode(t, addr, &root, "--json", "tree", "/tr")
	if root.Path != "/tr" || len(root.Children) != 2 || root.Children[0].Path != "/tr/a" || len(root.Children[0].Children) != 2 {
		t.Errorf("tree --json: %+v", root)
	}
	if got, code := zkcli(t, addr, "tree", "/nope"); code != 1 || got != "Node does not exist: /nope\n" {
		t.Errorf("tree /nope: exit %d, %q", code, got)
	}
}

// TestExportImport exports a subtree to a file and imports it elsewhere,
// and checks that the copy has the same data.
func TestExportImport(t *testing.T) {
	addr := startZkraft(t)
	for _, a := range [][]string{{"/ex", "root"}, {"/ex/a", "A"}, {"/ex/a/b", "B"}, {"/copy"}} {
		zkcli(t, addr, append([]string{"create"}, a...)...)
	}
	file := filepath.Join(t.TempDir(), "ex.json")
	out, errOut, code := zkcliSplit(t, addr, "export", "/ex", file)
	if code != 0 || out != "" || !strings.HasPrefix(errOut, "exported 3 nodes") {
		t.Fatalf("export: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil || !bytes.Contains(data, []byte(`"format":"zkraft-treejson"`)) {
		t.Fatalf("export file: %v\n%s", err, data)
	}
	stdout, _, _ := zkcliSplit(t, addr, "export", "/ex")
	if stdout != string(data) {
		t.Errorf("export to standard output differs from the file:\n%s\n%s", stdout, data)
	}
	if _, errOut, code := zkcliSplit(t, addr, "import", file, "/copy/ex"); code != 0 || !strings.HasPrefix(errOut, "created 3 nodes") {
		t.Fatalf("import: exit %d, %q", code, errOut)
	}
	if got, _ := zkcli(t, addr, "get", "/copy/ex/a/b"); got != "B\n" {
		t.Errorf("imported /copy/ex/a/b: %q", got)
	}
	if _, errOut, code := zkcliSplit(t, addr, "import", file, "/copy/ex"); code != 0 || !strings.Contains(errOut, "unchanged 3") {
		t.Errorf("import again over the same nodes (a resumed import): exit %d, %q", code, errOut)
	}
	zkcli(t, addr, "set", "/copy/ex/a", "changed")
	if _, errOut, code := zkcliSplit(t, addr, "import", file, "/copy/ex"); code != 1 || !strings.Contains(errOut, "/copy/ex/a, with other data") {
		t.Errorf("import over a changed node without -o: exit %d, %q", code, errOut)
	}
	if _, errOut, code := zkcliSplit(t, addr, "import", "-o", file, "/copy/ex"); code != 0 || !strings.Contains(errOut, "updated 1, unchanged 2") {
		t.Errorf("import -o: exit %d, %q", code, errOut)
	}
	if got, _ := zkcli(t, addr, "get", "/copy/ex/a"); got != "A\n" {
		t.Errorf("after import -o: %q", got)
	}
}

// waitFor polls until cond holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// startWatch runs "zkcli args..." in the background and returns its
// outputs and a channel that yields its exit status.
func startWatch(t *testing.T, addr string, args ...string) (stdout, stderr *testlog.Buffer, done <-chan int) {
	t.Helper()
	stdout, stderr = &testlog.Buffer{}, &testlog.Buffer{}
	ch := make(chan int, 1)
	go func() { ch <- run(append([]string{"-server", addr, "-timeout", "10s"}, args...), stdout, stderr) }()
	waitFor(t, "the watch to be set", func() bool { return strings.Contains(stderr.String(), "watching ") })
	return stdout, stderr, ch
}

// exitWithin waits for a background zkcli's exit status.
func exitWithin(t *testing.T, done <-chan int) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(10 * time.Second):
		t.Fatal("zkcli did not exit")
		return -1
	}
}

// TestWatch streams a node's events, then a subtree's with -R and
// --json, and stops on -n's count and on an interrupt.
func TestWatch(t *testing.T) {
	addr := startZkraft(t)
	out, _, done := startWatch(t, addr, "watch", "-n", "4", "/w")
	zkcli(t, addr, "create", "/w", "a")
	zkcli(t, addr, "set", "/w", "b")
	zkcli(t, addr, "create", "/w/kid")
	zkcli(t, addr, "create", "/other")
	zkcli(t, addr, "deleteall", "/w")
	if code := exitWithin(t, done); code != 0 {
		t.Fatalf("watch exit %d", code)
	}
	want := "NodeCreated /w\nNodeDataChanged /w\nNodeChildrenChanged /w\nNodeChildrenChanged /w\n"
	if got := out.String(); got != want {
		t.Errorf("watch /w:\n%s\nwant\n%s", got, want)
	}

	stop := make(chan os.Signal, 1)
	watchInterrupt = func() (<-chan os.Signal, func()) { return stop, func() {} }
	t.Cleanup(func() { watchInterrupt = defaultWatchInterrupt })
	out, _, done = startWatch(t, addr, "--json", "watch", "-R", "/r")
	zkcli(t, addr, "create", "/r")
	zkcli(t, addr, "create", "/r/a")
	zkcli(t, addr, "set", "/r/a", "x")
	waitFor(t, "three events", func() bool { return strings.Count(out.String(), "\n") == 3 })
	stop <- os.Interrupt
	if code := exitWithin(t, done); code != 0 {
		t.Fatalf("watch -R exit %d", code)
	}
	var types []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var ev jsonWatchEvent
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		types = append(types, ev.Type+" "+ev.Path)
	}
	if got := strings.Join(types, ","); got != "NodeCreated /r,NodeCreated /r/a,NodeDataChanged /r/a" {
		t.Errorf("watch -R --json: %s", got)
	}
}

// TestWatchReconnects cuts watch's connection (through a loopback proxy)
// and checks that it says so, reconnects to the same session, sets the
// watch again and goes on reporting events.
func TestWatchReconnects(t *testing.T) {
	addr := startZkraft(t)
	p := newCutProxy(t, addr)
	out, errOut, done := startWatch(t, p.addr(), "watch", "-n", "2", "/rc")
	zkcli(t, addr, "create", "/rc")
	waitFor(t, "the first event", func() bool { return out.String() == "NodeCreated /rc\n" })
	p.cut()
	waitFor(t, "the reconnection", func() bool { return strings.Contains(errOut.String(), "reconnected") })
	zkcli(t, addr, "set", "/rc", "x")
	if code := exitWithin(t, done); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := out.String(); got != "NodeCreated /rc\nNodeDataChanged /rc\n" {
		t.Errorf("events:\n%s", got)
	}
	if got := errOut.String(); !strings.Contains(got, "disconnected from the server") {
		t.Errorf("standard error:\n%s", got)
	}
}

// cutProxy forwards loopback connections to a server and can cut them all.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { io.Copy(s, c); s.Close() }()
		go func() { io.Copy(c, s); c.Close() }()
	}
}

// cut closes every connection made so far.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
