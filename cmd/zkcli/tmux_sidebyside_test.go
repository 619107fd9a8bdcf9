package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// An interactive step: a line to type, and what other clients do once
// its output is on the screen.
type tmuxStep struct {
	line string
	// shows is text the line prints from another thread in zkCli.sh (an
	// event: Closed after close, SyncConnected after connect), awaited
	// before the marker is typed.
	shows string
	// after runs once the line's output is shown (root is the pane's
	// test root); it must make the event waitEvent print.
	after     func(root string)
	waitEvent string
	// waitCount is how many times waitEvent is then on the screen (1
	// when zero).
	waitCount int
}

// tmuxMarker is typed after every step: its message, counted, tells that
// the step's output is complete (zkCli.sh without jline prints no prompt).
// It works on a closed session too.
const tmuxMarker, tmuxMarkerOut = "redo 99999", "Command index out of range"

// TestInteractiveSideBySide types the same lines into zkCli.sh (Apache
// ZooKeeper 3.8's, in a tmux pane, against ZooKeeper) and into zkcli
// (against the same ZooKeeper and against zkraft), with watches fired by
// another client, and compares the screens after removing zkcli's prompts
// (the Debian zkCli.sh runs without jline, so it shows no prompt; the
// terminal echoes the typed lines) and zkCli.sh's SLF4J and jline notices,
// and hiding zxids, times, addresses and each pane's root path.
func TestInteractiveSideBySide(t *testing.T) {
	zkAddr := needZkCli(t)
	tm := needTmux(t)
	tm.noEcho = true
	bin := buildZkcli(t)
	zkraftAddr := startZkraft(t)
	var setter func(args ...string)
	steps := []tmuxStep{
		{line: "create ROOT x"}, {line: "create ROOT/a 1"}, {line: "create -e ROOT/e"}, {line: "ls ROOT"},
		{line: "get -s ROOT/a"},
		{line: "get -w ROOT/a", after: func(r string) { setter("set", r+"/a", "2") },
			waitEvent: "type:NodeDataChanged path:ROOT/a"},
		{line: "ls -w ROOT", after: func(r string) { setter("create", r+"/c") },
			waitEvent: "type:NodeChildrenChanged path:ROOT"},
		{line: "stat -w ROOT/nope", after: func(r string) { setter("create", r+"/nope") },
			waitEvent: "type:NodeCreated path:ROOT/nope"},
		{line: "get -w ROOT/c", after: func(r string) { setter("delete", r+"/c") },
			waitEvent: "type:NodeDeleted path:ROOT/c"},
		{line: "history"}, {line: "redo 6"}, {line: "redo 2"},
		{line: "printwatches off"}, {line: "printwatches"}, {line: "printwatches on"},
		{line: "getEphemerals ROOT"}, {line: `set ROOT/a "two words"`}, {line: "get ROOT/a"},
		{line: "get ROOT/none"},
		// The watch commands zkCli.sh 3.8 has beyond -w, and whoami.
		{line: "whoami"}, {line: "get -w ROOT/a"}, {line: "ls -w ROOT/a"},
		{line: "removewatches ROOT/a -c", shows: "type:ChildWatchRemoved"},
		{line: "removewatches ROOT/a", shows: "type:DataWatchRemoved"}, {line: "removewatches ROOT/a"},
		{line: "addWatch -m PERSISTENT ROOT/a", after: func(r string) { setter("set", r+"/a", "3") },
			waitEvent: "type:NodeDataChanged path:ROOT/a", waitCount: 2},
		{line: "get ROOT/a", after: func(r string) { setter("set", r+"/a", "4") },
			waitEvent: "type:NodeDataChanged path:ROOT/a", waitCount: 3},
		// Explicit mode: zkCli.sh keeps the last -m for a later addWatch
		// without one (its command objects live as long as the shell);
		// zkcli takes the documented default.
		{line: "addWatch -m PERSISTENT_RECURSIVE ROOT", after: func(r string) { setter("create", r+"/p") },
			waitEvent: "type:NodeCreated path:ROOT/p"},
		// The session's own writes fire its recursive watch; zkCli.sh prints
		// the event from another thread, so the next line waits for it.
		{line: "set ROOT/p x", shows: "type:NodeDataChanged"}, {line: "delete ROOT/p", shows: "type:NodeDeleted"},
		{line: "removewatches ROOT/a", shows: "type:PersistentWatchRemoved"}, {line: "removewatches ROOT -d"},
		{line: "removewatches ROOT", shows: "type:PersistentWatchRemoved"},
		{line: "set ROOT/a 5"},
		{line: "close", shows: "state:Closed"}, {line: "ls ROOT"}, {line: "history"},
		{line: "connect ADDR", shows: "state:SyncConnected type:None"}, {line: "ls ROOT"}, {line: "getEphemerals ROOT"},
		{line: "quit"},
	}
	run := func(name, addr, root string, argv ...string) string {
		setter = func(args ...string) {
			if out, code := zkcli(t, addr, args...); code != 0 {
				t.Fatalf("%s: %v: %s", name, args, out)
			}
		}
		return runTmuxSteps(t, tm, name, addr, root, steps, argv)
	}
	want := run("zkclish", zkAddr, "/tj", zkCliSh, "-server", zkAddr)
	for _, target := range []struct{ name, addr, root string }{
		{"zkcli-zookeeper", zkAddr, "/tg"}, {"zkcli-zkraft", zkraftAddr, "/tg"},
	} {
		got := run(target.name, target.addr, target.root, bin, "-server", target.addr)
		if got != want {
			t.Errorf("%s's screen differs from zkCli.sh's:\n%s", target.name, lineDiff(want, got))
		}
	}
}

// runTmuxSteps types the steps into a new pane running argv and returns
// the screen, normalised for comparison. The terminal does not echo, so
// zkCli.sh's screen shows output only, and zkcli's lines that start with
// a prompt (the typed lines) are dropped.
func runTmuxSteps(t *testing.T, tm *tmuxServer, name, addr, root string, steps []tmuxStep, argv []string) string {
	t.Helper()
	p := tm.start(name, []string{"ZKCLI_HISTORY=" + filepath.Join(t.TempDir(), "h")}, argv...)
	p.waitText("WatchedEvent state:SyncConnected type:None path:null", 1)
	expand := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "ROOT", root), "ADDR", addr)
	}
	marks := 0
	for _, st := range steps {
		shown := 0
		if st.shows != "" {
			shown = strings.Count(p.screen(), st.shows)
		}
		p.typeLine(expand(st.line))
		if st.line == "quit" {
			p.waitText("EXIT=", 1)
			break
		}
		if st.shows != "" {
			p.waitText(st.shows, shown+1)
		}
		marks++
		p.typeLine(tmuxMarker)
		p.waitText(tmuxMarkerOut, marks)
		if st.after != nil {
			st.after(root)
			p.waitText(expand(st.waitEvent), max(st.waitCount, 1))
		}
	}
	return normaliseScreen(p.screen(), addr, root)
}

// normaliseScreen keeps what zkCli.sh and zkcli both show: the lines
// with zkcli's prompt, SLF4J's warnings and jline's notice go; zxids, times, the server's
// address and the root path are hidden.
func normaliseScreen(s, addr, root string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if rePrompt.MatchString(l) || strings.HasPrefix(l, "SLF4J:") || strings.HasPrefix(l, "JLine support is") {
			continue
		}
		keep = append(keep, l)
	}
	s = normalise(strings.Join(keep, "\n"), root)
	// At quit, zkCli.sh prints the Closed event only if its event thread
	// runs before the JVM exits (in about one run of eight under load it
	// does not), so that last event is left out of the comparison.
	s = closedAtQuit.ReplaceAllString(s, "EXIT=")
	// The JVM can also exit after the event thread printed only the
	// blank line that starts the Closed event: blank lines around the
	// exit line are not compared either (seen once in 20 loaded runs).
	s = blanksAtExit.ReplaceAllString(s, "\nEXIT=$1\n")
	return strings.ReplaceAll(s, addr, "ADDR")
}

// blanksAtExit is the shell's exit line with the blank lines around it.
var blanksAtExit = regexp.MustCompile(`\n+EXIT=(\d*)\n*$`)

// closedAtQuit is the Closed event printed just before the shell's exit.
var closedAtQuit = regexp.MustCompile(`WATCHER::\n\nWatchedEvent state:Closed type:None path:null\n+EXIT=`)

// lineDiff shows two texts line by line, marking the lines that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		mark := " "
		if wl != gl {
			mark = "!"
		}
		fmt.Fprintf(&b, "%s %-60q %q\n", mark, wl, gl)
	}
	return b.String()
}
