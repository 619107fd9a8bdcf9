package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestInteractiveTmux drives zkcli in a terminal (a tmux pane) against
// zkraft: the banner and prompt, commands, Tab completion of a command
// name and of a znode path, up-arrow recall, redo, a watch fired by
// another client while zkcli waits at the prompt (printed above a redrawn
// prompt), Ctrl-C dropping the line, an error not ending the session,
// history, Ctrl-D ending it with the last command's status, and the recall
// history surviving into the next run (without the addauth line).
func TestInteractiveTmux(t *testing.T) {
	tm := needTmux(t)
	bin := buildZkcli(t)
	addr := startZkraft(t)
	zkcli(t, addr, "create", "/app")
	zkcli(t, addr, "create", "/app/config", "cfg-v1")
	zkcli(t, addr, "create", "/app/locks")
	hist := filepath.Join(t.TempDir(), "history")
	env := []string{"ZKCLI_HISTORY=" + hist}
	prompt := func(state string, n int) string { return "[zk: " + addr + "(" + state + ") " + strconv.Itoa(n) + "]" }

	p := tm.start("zkcli", env, bin, "-server", addr)
	sc := p.waitLast(prompt("CONNECTED", 0))
	if !strings.HasPrefix(sc, "Connecting to "+addr+"\nWelcome to ZooKeeper!\n\nWATCHER::\n\n"+
		"WatchedEvent state:SyncConnected type:None path:null\n") {
		t.Errorf("banner:\n%s", sc)
	}
	p.typeLine("ls /")
	p.waitText("[app, zookeeper]", 1)
	p.waitLast(prompt("CONNECTED", 1))

	// A path: /app/con + Tab completes to /app/config.
	p.typeText("get /app/con")
	p.keys("Tab")
	p.waitLast(prompt("CONNECTED", 1) + " get /app/config")
	p.keys("Enter")
	p.waitText("\ncfg-v1\n", 1)
	p.waitLast(prompt("CONNECTED", 2))
	// A command name: getAll + Tab completes to "getAllChildrenNumber ".
	p.typeText("getAll")
	p.keys("Tab")
	p.waitLast(prompt("CONNECTED", 2) + " getAllChildrenNumber")
	p.typeLine("/app")
	p.waitText("\n2\n", 1)
	p.waitLast(prompt("CONNECTED", 3))

	// Up twice recalls "get /app/config".
	p.keys("Up", "Up")
	p.waitLast(prompt("CONNECTED", 3) + " get /app/config")
	p.keys("Enter")
	p.waitText("\ncfg-v1\n", 2)
	p.typeLine("redo 0")
	p.waitText("[app, zookeeper]", 2)
	p.waitLast(prompt("CONNECTED", 5))

	// A watch fired by another client while zkcli waits at the prompt.
	p.typeLine("get -w /app/config")
	p.waitText("\ncfg-v1\n", 3)
	p.waitLast(prompt("CONNECTED", 6))
	if out, code := zkcli(t, addr, "set", "/app/config", "cfg-v2"); code != 0 {
		t.Fatalf("set: %s", out)
	}
	sc = p.waitText("WatchedEvent state:SyncConnected type:NodeDataChanged path:/app/config", 1)
	if !strings.HasSuffix(sc, "\nWATCHER::\n\nWatchedEvent state:SyncConnected type:NodeDataChanged path:/app/config\n"+
		prompt("CONNECTED", 6)+"\n") {
		t.Errorf("the event is not printed above a redrawn prompt:\n%s", sc)
	}

	// Ctrl-C drops the line; errors do not end the session.
	p.typeText("delete /app")
	p.keys("C-c")
	p.waitLast(prompt("CONNECTED", 6))
	p.typeLine("get /nope")
	p.waitText("Node does not exist: /nope", 1)
	p.typeLine("addauth digest u:p")
	p.typeLine("history")
	sc = p.waitLast(prompt("CONNECTED", 9))
	wantHist := "0 - ls /\n1 - get /app/config\n2 - getAllChildrenNumber /app\n3 - get /app/config\n4 - ls /\n" +
		"5 - get -w /app/config\n6 - get /nope\n7 - addauth digest u:p\n8 - history\n"
	if !strings.Contains(sc, wantHist) {
		t.Errorf("history: want\n%s\nscreen:\n%s", wantHist, sc)
	}
	p.typeLine("ls /app")
	p.waitText("[config, locks]", 1)
	p.waitLast(prompt("CONNECTED", 10))
	p.keys("C-d")
	p.waitText("EXIT=0", 1)
	if !fileHas(hist, "get -w /app/config\n") || fileHas(hist, "addauth") || fileHas(hist, "delete /app") {
		t.Errorf("history file: want the typed lines but addauth's and the dropped one")
	}

	// The next run recalls the last line of the first; quit ends it with
	// the last command's status (get's failure).
	p2 := tm.start("again", env, bin, "-server", addr)
	p2.waitLast(prompt("CONNECTED", 0))
	p2.keys("Up")
	p2.waitLast(prompt("CONNECTED", 0) + " ls /app")
	p2.keys("C-c")
	// The commands main gained complete too: addWatch's events print at
	// the prompt as get -w's do.
	p2.typeText("remove")
	p2.keys("Tab")
	p2.waitLast(prompt("CONNECTED", 0) + " removewatches")
	p2.keys("C-c")
	p2.typeText("addW")
	p2.keys("Tab")
	p2.waitLast(prompt("CONNECTED", 0) + " addWatch")
	p2.typeLine("/app")
	p2.waitLast(prompt("CONNECTED", 1))
	if out, code := zkcli(t, addr, "set", "/app/config", "cfg-v3"); code != 0 {
		t.Fatalf("set: %s", out)
	}
	sc = p2.waitText("WatchedEvent state:SyncConnected type:NodeDataChanged path:/app/config", 1)
	if !strings.HasSuffix(sc, "\nWATCHER::\n\nWatchedEvent state:SyncConnected type:NodeDataChanged path:/app/config\n"+
		prompt("CONNECTED", 1)+"\n") {
		t.Errorf("addWatch's event is not printed above a redrawn prompt:\n%s", sc)
	}
	p2.typeLine("get /nope")
	p2.waitText("Node does not exist: /nope", 1)
	p2.typeLine("quit")
	p2.waitText("EXIT=1", 1)
}
