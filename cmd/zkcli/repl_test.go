package main

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/testlog"
)

// zkcliSession runs one zkcli session against addr with the lines of
// input on its standard input (a pipe, so no prompt) and returns what it
// wrote, standard error merged in write order, and its exit status.
func zkcliSession(t *testing.T, addr, input string) (string, int) {
	t.Helper()
	var b bytes.Buffer
	code := runWith([]string{"-server", addr, "-timeout", "10s"}, strings.NewReader(input), &b, &b)
	return b.String(), code
}

// TestSessionLines runs a session's lines through a pipe against zkraft:
// the outputs as zkCli.sh prints them (checked against zkCli.sh's in
// TestInteractiveSideBySide), history, redo, printwatches, close (and its
// Closed event) and connect,
// and a watch fired by the session's own write, printed before the
// write's output.
func TestSessionLines(t *testing.T) {
	addr := startZkraft(t)
	in := strings.Join([]string{
		"create /s a", "ls /", "redo 0x1", "redo 9", "redo x", "get -w /s", "stat -w /s", "ls -w /s",
		"set /s b", "create /s/c", "stat -w /s/new", "create /s/new", "history", "printwatches",
		"printwatches off", "get -w /s", "set /s c", "printwatches on", `set /s "two words"`, "get /s",
		"close", "ls /", "history", "connect " + addr, "ls /s", "",
	}, "\n")
	got, code := zkcliSession(t, addr, in)
	want := "Created /s\n[s, zookeeper]\n[s, zookeeper]\nCommand index out of range\n" +
		"For input string: \"x\"\na\n" + statLines(0, 1, 0) + "[]\n" +
		watcherText("WatchedEvent state:SyncConnected type:NodeDataChanged path:/s") +
		watcherText("WatchedEvent state:SyncConnected type:NodeChildrenChanged path:/s") + "Created /s/c\n" +
		"Node does not exist: /s/new\n" +
		watcherText("WatchedEvent state:SyncConnected type:NodeCreated path:/s/new") + "Created /s/new\n" +
		"2 - ls /\n3 - redo 9\n4 - redo x\n5 - get -w /s\n6 - stat -w /s\n7 - ls -w /s\n8 - set /s b\n" +
		"9 - create /s/c\n10 - stat -w /s/new\n11 - create /s/new\n12 - history\n" +
		"printwatches is on\nb\ntwo words\n" +
		watcherText(closedEvent) + "Not connected\n" +
		"12 - history\n13 - printwatches\n14 - printwatches off\n15 - get -w /s\n" +
		"16 - set /s c\n17 - printwatches on\n18 - set /s \"two words\"\n19 - get /s\n20 - close\n21 - ls /\n" +
		"22 - history\nNot connected\n" +
		watcherText("WatchedEvent state:SyncConnected type:None path:null") + "[c, new]\n"
	if got = normalise(got, "\x00"); got != want || code != 0 {
		t.Errorf("exit %d, output\n%s\nwant exit 0, output\n%s", code, got, want)
	}
}

// statLines is printStat's output for a node of the tests, zxids and
// times hidden as normalise hides them.
func statLines(cversion, dataLength, numChildren int) string {
	return "cZxid = 0xZXID\nctime = TIME\nmZxid = 0xZXID\nmtime = TIME\npZxid = 0xZXID\n" +
		"cversion = " + strconv.Itoa(cversion) + "\ndataVersion = 0\naclVersion = 0\nephemeralOwner = 0x0\n" +
		"dataLength = " + strconv.Itoa(dataLength) + "\nnumChildren = " + strconv.Itoa(numChildren) + "\n"
}

// TestSessionExitStatus checks that a session ends with its last
// command's status, as zkCli.sh does: at the end of the input, and at quit
// (quit's own status is not counted), and that no line ends the session
// early.
func TestSessionExitStatus(t *testing.T) {
	addr := startZkraft(t)
	for _, tc := range []struct {
		in   string
		code int
	}{
		{"ls /\n", 0},
		{"get /nope\n", 1},
		{"get /nope\nls /\n", 0},
		{"get /nope\nquit\nls /\n", 1},
		{"bogus\n", 127},
		{"get\nget -x /\nredo 7\n\n", 1},
		{"ls /\nquit\n", 0},
		{"get /nope\nredo 0\n", 0},
	} {
		out, code := zkcliSession(t, addr, tc.in)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d; output\n%s", tc.in, code, tc.code, out)
		}
		if strings.Contains(tc.in, "quit\nls") && strings.Contains(out, "[zookeeper]") {
			t.Errorf("%q: a line after quit ran:\n%s", tc.in, out)
		}
	}
}

// TestSessionEphemerals checks that getEphemerals in a session lists the
// ephemerals the session made, and only those, filtered by a prefix.
func TestSessionEphemerals(t *testing.T) {
	addr := startZkraft(t)
	if out, code := zkcli(t, addr, "create", "/other"); code != 0 {
		t.Fatalf("create: %s", out)
	}
	in := "getEphemerals\ncreate /e\ncreate -e /e/one\ncreate -e -s /e/seq\ncreate -e /ex\ncreate -e /other/x\n" +
		"getEphemerals\ngetEphemerals /e\ngetEphemerals /e/\ngetEphemerals /nope\ndelete /ex\ngetEphemerals /\n"
	got, code := zkcliSession(t, addr, in)
	want := "[]\nCreated /e\nCreated /e/one\nCreated /e/seq0000000001\nCreated /ex\nCreated /other/x\n" +
		"[/e/one, /e/seq0000000001, /ex, /other/x]\n[/e/one, /e/seq0000000001, /ex]\n" +
		"Path must not end with / character\n[]\n[/e/one, /e/seq0000000001, /other/x]\n"
	if got != want || code != 0 {
		t.Errorf("exit %d, output\n%s\nwant\n%s", code, got, want)
	}
	// Another session sees none of them.
	if out, _ := zkcli(t, addr, "getEphemerals"); out != "[]\n" {
		t.Errorf("one-shot getEphemerals: %q", out)
	}
}

// liveSession is a zkcli session fed through a pipe while it runs.
type liveSession struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *testlog.Buffer
	code chan int
}

func startSession(t *testing.T, addr string) *liveSession {
	return startSessionArgs(t, "-server", addr, "-timeout", "10s")
}

// startSessionArgs starts a session with zkcli's flags args.
func startSessionArgs(t *testing.T, args ...string) *liveSession {
	r, w := io.Pipe()
	s := &liveSession{t: t, in: w, out: &testlog.Buffer{}, code: make(chan int, 1)}
	go func() {
		s.code <- runWith(args, r, s.out, s.out)
	}()
	t.Cleanup(func() { w.Close() })
	return s
}

// send types one line.
func (s *liveSession) send(line string) {
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("send %q: %v", line, err)
	}
}

// waitFor waits until the output contains text.
func (s *liveSession) waitFor(text string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.out.String(), text) {
		if time.Now().After(deadline) {
			s.t.Fatalf("no %q in the session's output:\n%s", text, s.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// end closes the input and returns the exit status.
func (s *liveSession) end() int {
	s.in.Close()
	select {
	case code := <-s.code:
		return code
	case <-time.After(10 * time.Second):
		s.t.Fatal("the session did not end at the end of its input")
		return -1
	}
}

// TestSessionWatchFromAnotherClient checks that a watch set in a session
// prints when another client changes the node, while the session waits
// for its next line.
func TestSessionWatchFromAnotherClient(t *testing.T) {
	addr := startZkraft(t)
	zkcli(t, addr, "create", "/w", "v1")
	s := startSession(t, addr)
	s.send("get -w /w")
	s.waitFor("v1\n")
	s.send("ls -w /w")
	s.waitFor("[]\n")
	if out, code := zkcli(t, addr, "set", "/w", "v2"); code != 0 {
		t.Fatalf("set: %s", out)
	}
	s.waitFor(watcherText("WatchedEvent state:SyncConnected type:NodeDataChanged path:/w"))
	zkcli(t, addr, "create", "/w/kid")
	s.waitFor(watcherText("WatchedEvent state:SyncConnected type:NodeChildrenChanged path:/w"))
	// Both watches were one-shot: later changes print nothing more.
	zkcli(t, addr, "set", "/w", "v3")
	zkcli(t, addr, "create", "/w/kid2")
	s.send("get /w")
	s.waitFor("v3\n")
	if code := s.end(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if n := strings.Count(s.out.String(), "WATCHER::"); n != 2 {
		t.Errorf("%d events printed, want 2:\n%s", n, s.out.String())
	}
}

// TestSessionExpiry checks the connection's state events: the server
// dropping an expired session prints Disconnected then Expired, after
// which commands print "Not connected" until connect, as in zkCli.sh.
func TestSessionExpiry(t *testing.T) {
	srv := integration.StartServer(t, integration.WithFakeClock())
	addr := srv.Addr()
	s := startSession(t, addr)
	s.send("ls /")
	s.waitFor("[zookeeper]\n")
	srv.Clock.Advance(time.Minute)
	s.waitFor(watcherText("WatchedEvent state:Expired type:None path:null"))
	s.send("ls /")
	s.waitFor("Not connected\n")
	s.send("connect " + addr)
	s.send("ls /")
	s.waitFor("Not connected\n" + watcherText("WatchedEvent state:SyncConnected type:None path:null") + "[zookeeper]\n")
	if code := s.end(); code != 0 {
		t.Errorf("exit %d", code)
	}
	want := "[zookeeper]\n" + watcherText("WatchedEvent state:Disconnected type:None path:null") +
		watcherText("WatchedEvent state:Expired type:None path:null") + "Not connected\n" +
		watcherText("WatchedEvent state:SyncConnected type:None path:null") + "[zookeeper]\n"
	if got := s.out.String(); got != want {
		t.Errorf("output\n%s\nwant\n%s", got, want)
	}
}

// TestSessionAddAuth checks that addauth in a session also serves the
// requests zkcli sends through the session tap (getAllChildrenNumber),
// and that connect forgets it, as zkCli.sh's connect does.
func TestSessionAddAuth(t *testing.T) {
	addr := startZkraft(t)
	acl := "digest:" + digestID("u", "p") + ":cdrwa"
	for _, args := range [][]string{{"create", "/sec", "x", acl}, {"create", "/sec/a"}} {
		if out, code := zkcli(t, addr, append([]string{"-auth", "digest:u:p"}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, out)
		}
	}
	in := "getAllChildrenNumber /sec\naddauth digest u:p\ngetAllChildrenNumber /sec\nls /sec\n" +
		"connect " + addr + "\ngetAllChildrenNumber /sec\nls /sec\n"
	got, _ := zkcliSession(t, addr, in)
	want := "Insufficient permission : /sec\n1\n[a]\n" + watcherText(closedEvent) +
		watcherText("WatchedEvent state:SyncConnected type:None path:null") +
		"Insufficient permission : /sec\nInsufficient permission : /sec\n"
	if got != want {
		t.Errorf("output\n%s\nwant\n%s", got, want)
	}
}
