package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/server"
)

// chrootLines are the session's lines under a chroot: writes (a
// sequential node's returned name among them), reads of the chroot's
// root, watches fired by the session's own writes (their events' paths),
// /zookeeper (the chroot's, not the server's), quotas, and errors naming
// paths.
// No node is empty, and config is left out: zkCli.sh prints empty data as
// an empty line, which the comparison cannot tell from the event lines'.
var chrootLines = []string{
	"create /x a", "create -s /x/s- b", "create -e -s /x/e- c", "ls /", "ls -R /", "get /x", "stat /x",
	"set /x d", "get -s /x", "get -w /x", "set /x e", "ls -w /x", "create /x/c f", "stat -w /x/n",
	"create /x/n g", "getAllChildrenNumber /", "getAllChildrenNumber /x", "getEphemerals /x", "getEphemerals", "sync /x", "getAcl /x",
	"ls /zookeeper", "get /x/nope", "delete /x/nope", "create /x a", "create /x/s-0000000000/y/z h",
	"addWatch /x", "set /x/c i", "removewatches /x",
	// Quotas live under the chroot's /zookeeper/quota, as Java's client
	// writes them through its chroot (the server does not count them).
	"setquota -n 5 /x", "listquota /x", "ls -R /zookeeper", "delquota /x", "listquota /x",
	// connect takes a connect string too: here one deeper chroot.
	"create /x/in j", "connect {hosts}{chroot}/x", "ls /", "create -s /in/q- k", "get -w /in", "set /in l",
	"connect {hosts}", "ls {chroot}/x", "connect {server}",
	"deleteall /x", "ls /", "stat /",
}

// TestConnStringSideBySide runs the same session lines through zkCli.sh
// and zkcli, both with a connect string of two hosts (the same server
// twice) and a chroot, against zkraft and, when it can start, against
// Apache ZooKeeper, and compares each line's output and the watch events
// printed, in order. zkCli.sh prints an event from another thread, so
// wherever it lands among the outputs; the events are taken out of both
// outputs and compared as a list.
func TestConnStringSideBySide(t *testing.T) {
	needZkCliSh(t)
	targets := map[string]string{"zkraft": startZkraft(t)}
	if ok, _ := realzk.Available(); ok {
		targets["ZooKeeper"] = needZkCli(t)
	}
	for name, addr := range targets {
		t.Run(name, func(t *testing.T) {
			for _, chroot := range []string{"/app-java", "/app-go"} {
				if out, code := zkcli(t, addr, "create", chroot); code != 0 {
					t.Fatalf("create %s: %s", chroot, out)
				}
			}
			servers := addr + "," + addr
			compareSessions(t, servers+"/app-java", servers+"/app-go", chrootLines)
		})
	}
}

// TestConnStringIPv6SideBySide connects zkCli.sh and zkcli to a zkraft
// listening on the IPv6 loopback, as [::1]:port, and with a chroot.
func TestConnStringIPv6SideBySide(t *testing.T) {
	needZkCliSh(t)
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback on this machine (listen on [::1]: %v)", err)
	}
	ln.Close()
	s := integration.StartServer(t, integration.WithConfig(func(c *server.Config) {
		c.ClientPortAddress = "::1"
		c.ExtendedTypesEnabled = true
	}))
	addr := s.Addr()
	if !strings.HasPrefix(addr, "[::1]:") {
		t.Fatalf("zkraft listens on %s, want [::1]:port", addr)
	}
	for _, chroot := range []string{"/v6-java", "/v6-go"} {
		if out, code := zkcli(t, addr, "create", chroot); code != 0 {
			t.Fatalf("create %s: %s", chroot, out)
		}
	}
	lines := []string{"create /x a", "create -s /x/s- b", "ls /", "get -w /x", "set /x c", "get /x", "deleteall /x"}
	compareSessions(t, addr, addr, []string{"ls /", "stat /zookeeper"})
	compareSessions(t, addr+"/v6-java", addr+"/v6-go", lines)
}

// TestConnStringHostDownSideBySide gives zkCli.sh and zkcli a connect
// string whose first host is down (a closed port): both clients try the
// hosts in a random order and end up on the one that works.
func TestConnStringHostDownSideBySide(t *testing.T) {
	needZkCliSh(t)
	addr := startZkraft(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()
	for _, chroot := range []string{"/down-java", "/down-go"} {
		if out, code := zkcli(t, addr, "create", chroot); code != 0 {
			t.Fatalf("create %s: %s", chroot, out)
		}
	}
	servers := down + "," + addr
	lines := []string{"create /x a", "ls /", "get -w /x", "set /x b", "get /x", "delete /x"}
	compareSessions(t, servers+"/down-java", servers+"/down-go", lines)
}

// needZkCliSh skips the test when zkCli.sh (and the java it runs on) is
// missing.
func needZkCliSh(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(zkCliSh); err != nil {
		t.Skip("zkCli.sh not installed (apt-get install -y zookeeper): " + err.Error())
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java for zkCli.sh: " + err.Error())
	}
}

// compareSessions runs lines in one zkCli.sh session with -server java
// and in one zkcli session with -server goServer (each its own chroot, the
// chroot's name hidden in the comparison), and compares the outputs line
// by line once normalised, then the watch events.
func compareSessions(t *testing.T, java, goServer string, lines []string) {
	t.Helper()
	javaRoot, goRoot := chrootOf(java), chrootOf(goServer)
	javaOuts := sessionOutputs(t, "zkCli.sh", func(in string) string { return zkCliShSession(t, java, in) }, expandLines(lines, java))
	goOuts := sessionOutputs(t, "zkcli", func(in string) string { out, _ := zkcliSession(t, goServer, in); return out }, expandLines(lines, goServer))
	wantOuts, wantEvents := takeEvents(javaOuts, javaRoot)
	gotOuts, gotEvents := takeEvents(goOuts, goRoot)
	for i, line := range lines {
		if gotOuts[i] != wantOuts[i] {
			t.Errorf("-server %s, %q:\nzkCli.sh:\n%s\nzkcli:\n%s", goServer, line, wantOuts[i], gotOuts[i])
		}
	}
	if strings.Join(gotEvents, "\n") != strings.Join(wantEvents, "\n") {
		t.Errorf("-server %s: events\nzkCli.sh:\n%s\nzkcli:\n%s", goServer, strings.Join(wantEvents, "\n"), strings.Join(gotEvents, "\n"))
	}
	events := 0
	for _, l := range lines {
		if strings.Contains(l, " -w ") || strings.HasPrefix(l, "addWatch") {
			events++
		}
	}
	if len(wantEvents) < events {
		t.Errorf("zkCli.sh printed %d events, want at least %d: %q", len(wantEvents), events, wantEvents)
	}
}

// expandLines puts into lines the client's own connect string: {server}
// is all of it, {hosts} the part before the chroot, {chroot} the chroot.
func expandLines(lines []string, server string) []string {
	hosts, chroot := server, ""
	if i := strings.IndexByte(server, '/'); i >= 0 {
		hosts, chroot = server[:i], server[i:]
	}
	r := strings.NewReplacer("{server}", server, "{hosts}", hosts, "{chroot}", chroot)
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = r.Replace(l)
	}
	return out
}

// chrootOf is a connect string's chroot ("" for none).
func chrootOf(server string) string {
	_, chroot, _ := parseConnString(server)
	return chroot
}

// sessionOutputs runs lines in one session of a client (run takes the
// standard input and returns the output, standard error merged), with a
// marker, a stat of a missing node, after each line, and returns each
// line's output. A first line before the start marker takes what Java's
// client does to the request in flight when the host it tries first is
// down: it fails with ConnectionLoss, and the client goes on to the next.
func sessionOutputs(t *testing.T, name string, run func(stdin string) string, lines []string) []string {
	t.Helper()
	var in strings.Builder
	in.WriteString("sync /\nstat /zkcli-mark-start\n")
	for i, l := range lines {
		fmt.Fprintf(&in, "%s\nstat /zkcli-mark-%d\n", l, i)
	}
	in.WriteString("quit\n")
	all := run(in.String())
	_, text, ok := strings.Cut(all, "Node does not exist: /zkcli-mark-start\n")
	if !ok {
		t.Fatalf("%s's output has no start marker:\n%s", name, all)
	}
	outs := make([]string, len(lines))
	for i := range lines {
		mark := fmt.Sprintf("Node does not exist: /zkcli-mark-%d\n", i)
		if outs[i], text, ok = strings.Cut(text, mark); !ok {
			t.Fatalf("%s's output has no marker %d:\n%s", name, i, all)
		}
	}
	return outs
}

// zkCliShSession runs zkCli.sh -server server with stdin and returns its
// output, standard error merged and SLF4J's warnings left out.
func zkCliShSession(t *testing.T, server, stdin string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, zkCliSh, "-server", server)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("zkCli.sh: %v\n%s", err, out.String())
		}
	}
	return dropJavaNoise(out.String())
}

// eventLines are the two messages a watcher prints per event, each after
// an empty line: Java prints each with one println, so another thread's
// output can come between them but not into them.
var eventLines = regexp.MustCompile(`\n(WATCHER::|WatchedEvent [^\n]*)\n`)

// takeEvents takes the watch events out of the outputs (zxids, times and
// the chroot's name, root, normalised) and returns the outputs left and
// the events, in order.
func takeEvents(outs []string, root string) ([]string, []string) {
	var events []string
	left := make([]string, len(outs))
	for i, o := range outs {
		if root != "" {
			o = normalise(o, root)
		} else {
			o = normalise(o, "\x00")
		}
		left[i] = eventLines.ReplaceAllStringFunc(o, func(m string) string {
			// The connection's own event is printed by zkCli.sh, not by
			// zkcli reading a pipe.
			if ev := strings.TrimSpace(m); strings.HasPrefix(ev, "WatchedEvent ") && ev+"\n" != connectedEvent {
				events = append(events, ev)
			}
			return ""
		})
	}
	return left, events
}
