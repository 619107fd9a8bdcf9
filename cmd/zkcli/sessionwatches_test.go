package main

import (
	"crypto/x509/pkix"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/testlog"
	"github.com/zkraft/zkraft/internal/testpki"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// event is watcherText of a SyncConnected event of type typ on path.
func event(typ, path string) string {
	return watcherText("WatchedEvent state:SyncConnected type:" + typ + " path:" + path)
}

// TestSessionPersistentWatches runs addWatch and removewatches in a
// session fed through a pipe: persistent watches print every change the
// session's own writes make (before the write's output), recursive ones
// the subtree's, printwatches off silences them, and removewatches
// reports each kind of watch it removed, as zkCli.sh prints them (checked
// against zkCli.sh in TestInteractiveSideBySide).
func TestSessionPersistentWatches(t *testing.T) {
	addr := startZkraft(t)
	in := strings.Join([]string{
		"create /pw a", "addWatch -m PERSISTENT /pw", "set /pw b", "set /pw c", "create /pw/k",
		"addWatch /r", "create /r", "create /r/x", "printwatches off", "set /r/x 1", "printwatches on",
		"delete /r/x", "removewatches /pw", "set /pw d", "removewatches /r -c", "removewatches /r",
		"create /s", "get -w /s", "ls -w /s", "removewatches /s", "removewatches /s",
		"stat -w /s", "removewatches /s -c", "removewatches /s -d", "get -w /s", "set /s x", "removewatches /s",
	}, "\n")
	got, code := zkcliSession(t, addr, in)
	want := "Created /pw\n" + event("NodeDataChanged", "/pw") + event("NodeDataChanged", "/pw") +
		event("NodeChildrenChanged", "/pw") + "Created /pw/k\n" +
		event("NodeCreated", "/r") + "Created /r\n" + event("NodeCreated", "/r/x") + "Created /r/x\n" +
		event("NodeDeleted", "/r/x") + event("PersistentWatchRemoved", "/pw") +
		"KeeperErrorCode = No such watcher for /r\n" + event("PersistentWatchRemoved", "/r") +
		"Created /s\nnull\n[]\n" + event("ChildWatchRemoved", "/s") + event("DataWatchRemoved", "/s") +
		"KeeperErrorCode = No such watcher for /s\n" +
		statLines(0, 0, 0) + "KeeperErrorCode = No such watcher for /s\n" + event("DataWatchRemoved", "/s") +
		"null\n" + event("NodeDataChanged", "/s") + "KeeperErrorCode = No such watcher for /s\n"
	if got = normalise(got, "\x00"); got != want || code != 1 {
		t.Errorf("exit %d, output\n%s\nwant exit 1, output\n%s", code, got, want)
	}
}

// TestSessionAddWatchFromAnotherClient checks that addWatch's events
// print while the session waits for its next line, when another client
// changes the nodes, and that watch, zkcli's own, prints its lines in a
// session without watcher events and takes its watch away when it ends.
func TestSessionAddWatchFromAnotherClient(t *testing.T) {
	addr := startZkraft(t)
	zkcli(t, addr, "create", "/aw", "v1")
	s := startSession(t, addr)
	s.send("addWatch /aw")
	s.send("whoami")
	s.waitFor("ip: 127.0.0.1\n")
	zkcli(t, addr, "set", "/aw", "v2")
	s.waitFor(event("NodeDataChanged", "/aw"))
	zkcli(t, addr, "create", "/aw/kid")
	s.waitFor(event("NodeCreated", "/aw/kid"))
	s.send("removewatches /aw")
	s.waitFor(event("PersistentWatchRemoved", "/aw"))

	s.send("watch -n 1 /aw/kid")
	s.waitFor("watching the node at /aw/kid; interrupt to stop\n")
	zkcli(t, addr, "set", "/aw/kid", "x")
	s.waitFor("NodeDataChanged /aw/kid\n")
	s.send("removewatches /aw/kid")
	s.waitFor("KeeperErrorCode = No such watcher for /aw/kid\n")
	if code := s.end(); code != 1 {
		t.Errorf("exit %d, want 1 (the last removewatches failed)", code)
	}
	want := "Auth scheme: User\nip: 127.0.0.1\n" + event("NodeDataChanged", "/aw") +
		event("NodeCreated", "/aw/kid") + event("PersistentWatchRemoved", "/aw") +
		"watching the node at /aw/kid; interrupt to stop\nNodeDataChanged /aw/kid\n" +
		"KeeperErrorCode = No such watcher for /aw/kid\n"
	if got := s.out.String(); got != want {
		t.Errorf("output\n%s\nwant\n%s", got, want)
	}
	// The server no longer holds watch's watch either: a client asking
	// the server to remove it is told there is none.
	c := &client{server: addr, timeout: 10 * time.Second}
	if err := c.connect(); err != nil {
		t.Fatal(err)
	}
	defer c.conn.Close()
	err := c.tap.call(wire.OpRemoveWatches, &wire.RemoveWatchesRequest{Path: "/aw/kid", Type: wire.WatcherAny}, nil, "/aw/kid")
	if replyCode(err) != wire.CodeNoWatcher {
		t.Errorf("another session's removeWatches: %v, want NoWatcher", err)
	}
}

// TestSessionTLS checks that a session's connections, the first one and
// connect's, speak TLS with the -tls-* flags and carry the session tap:
// whoami shows the certificate's identity, getEphemerals the session's
// ephemerals.
func TestSessionTLS(t *testing.T) {
	pki := testpki.New(t, "zkcli session CA")
	serverKS, ca := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "zkserver"}))
	clientKS, _ := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "bob"}))
	srv := integration.StartServer(t, integration.WithConfig(func(c *server.Config) {
		c.Security.SecureClientPort = server.EphemeralPort
		c.Security.SSLProps = map[string]string{"ssl.keyStore.location": serverKS, "ssl.trustStore.location": ca}
	}))
	addr := srv.SecureAddr()
	in := "whoami\ncreate -e /tls-e\ngetEphemerals\nconnect " + addr + "\nwhoami\ngetEphemerals\n"
	var b testlog.Buffer
	code := runWith([]string{"-server", addr, "-timeout", "10s", "-tls-ca", ca, "-tls-cert", clientKS, "-tls-key", clientKS},
		strings.NewReader(in), &b, &b)
	who := "Auth scheme: User\nip: 127.0.0.1\nx509: CN=bob\n"
	// connect's new session has no ephemerals of its own.
	want := who + "Created /tls-e\n[/tls-e]\n" + watcherText(closedEvent) +
		watcherText("WatchedEvent state:SyncConnected type:None path:null") + who + "[]\n"
	if got := b.String(); got != want || code != 0 {
		t.Errorf("exit %d, output\n%s\nwant\n%s", code, got, want)
	}
}

// TestWatchTable checks the session's watch table against Java's client
// rules: which notifications fire a watch (one-shot ones once, recursive
// ones for the subtree but not for child lists), and what removewatches
// removes, also with -l when the server was not reached.
func TestWatchTable(t *testing.T) {
	w := newWatchTable()
	w.set(kindData, "/a")
	w.set(kindRecursive, "/r")
	for _, tc := range []struct {
		typ  zk.EventType
		path string
		want bool
	}{
		{zk.EventNodeDataChanged, "/a", true}, {zk.EventNodeDataChanged, "/a", false},
		{zk.EventNodeCreated, "/r/x/y", true}, {zk.EventNodeDeleted, "/r", true},
		{zk.EventNodeDataChanged, "/rr", false}, {zk.EventNodeChildrenChanged, "/a", false},
	} {
		if got := w.fire(tc.typ, tc.path); got != tc.want {
			t.Errorf("fire(%v, %s) = %v, want %v", tc.typ, tc.path, got, tc.want)
		}
	}
	w.set(kindChild, "/c")
	w.set(kindData, "/c")
	if _, err := w.remove("/c", wire.WatcherAny, false, wire.CodeConnectionLoss); replyCode(err) != wire.CodeConnectionLoss {
		t.Errorf("remove without -l, server not reached: %v", err)
	}
	events, err := w.remove("/c", wire.WatcherAny, true, wire.CodeConnectionLoss)
	if err != nil || len(events) != 2 || events[0] != eventChildWatchRemoved || events[1] != eventDataWatchRemoved {
		t.Errorf("remove -l: %v, %v", events, err)
	}
	if _, err := w.remove("/c", wire.WatcherAny, true, wire.CodeOK); replyCode(err) != wire.CodeNoWatcher {
		t.Errorf("remove again: %v", err)
	}
	if _, err := w.remove("/r", wire.WatcherData, false, wire.CodeOK); replyCode(err) != wire.CodeNoWatcher {
		t.Errorf("remove -d of a recursive watch: %v", err)
	}
	if events, err := w.remove("/r", wire.WatcherAny, false, wire.CodeOK); err != nil || len(events) != 1 || events[0] != eventPersistentWatchRemoved {
		t.Errorf("remove a recursive watch: %v, %v", events, err)
	}
}
