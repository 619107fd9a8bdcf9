package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Interactive tests run zkcli (built from this package) and zkCli.sh in
// tmux panes, type into them with send-keys and read the screen with
// capture-pane, waiting on what the screen shows.

// tmuxServer is a tmux server of the test's own (its own socket), killed
// when the test ends.
type tmuxServer struct {
	t    *testing.T
	sock string
	// noEcho turns the terminal's echo off in new panes, so lines typed
	// ahead while a command runs do not show (zkcli's line editor still
	// shows each line after its prompt).
	noEcho bool
}

// needTmux returns a fresh tmux server, or skips the test when tmux is not
// installed.
func needTmux(t *testing.T) *tmuxServer {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (apt-get install -y tmux): the interactive tests drive zkcli in a tmux pane")
	}
	s := &tmuxServer{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	t.Cleanup(func() { exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	s.newSession()
	return s
}

// buildZkcli builds this package's zkcli into a temporary directory.
func buildZkcli(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH: cannot build zkcli for the interactive tests")
	}
	bin := filepath.Join(t.TempDir(), "zkcli")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func (s *tmuxServer) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// pane is one tmux window running a command.
type pane struct {
	s    *tmuxServer
	name string
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// start runs argv (with env, NAME=value entries) in a new 250x50 window.
// When the command ends the pane prints "EXIT=<status>" and stays.
func (s *tmuxServer) start(name string, env []string, argv ...string) *pane {
	var cmd []string
	for _, a := range argv {
		cmd = append(cmd, shellQuote(a))
	}
	line := fmt.Sprintf("env %s %s; echo EXIT=$?; exec sleep 3600", strings.Join(env, " "), strings.Join(cmd, " "))
	if s.noEcho {
		line = "stty -echo; " + line
	}
	s.tmux("new-window", "-d", "-n", name, line)
	return &pane{s, name}
}

// newSession starts the tmux server with session "t" and an idle first
// window; the other windows take its size.
func (s *tmuxServer) newSession() {
	s.tmux("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "250", "-y", "50", "exec sleep 3600")
	s.tmux("set-option", "-g", "history-limit", "5000")
}

// screen returns the pane's text, scrollback included, wrapped lines
// joined and trailing blanks removed.
func (p *pane) screen() string {
	out := p.s.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t:"+p.name)
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
}

// waitFor waits until ok holds for the screen, failing the test with what
// it shows after 20 seconds.
func (p *pane) waitFor(what string, ok func(screen string) bool) string {
	p.s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		sc := p.screen()
		if ok(sc) {
			return sc
		}
		if time.Now().After(deadline) {
			p.s.t.Fatalf("%s: waited 20s for %s; the screen shows:\n%s", p.name, what, sc)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitText waits until the screen shows text n times at least.
func (p *pane) waitText(text string, n int) string {
	p.s.t.Helper()
	return p.waitFor(fmt.Sprintf("%d× %q", n, text), func(sc string) bool { return strings.Count(sc, text) >= n })
}

// lastLine returns the screen's last line.
func lastLine(screen string) string {
	screen = strings.TrimRight(screen, "\n")
	return screen[strings.LastIndex(screen, "\n")+1:]
}

// waitLast waits until the screen's last line is line.
func (p *pane) waitLast(line string) string {
	p.s.t.Helper()
	return p.waitFor(fmt.Sprintf("last line %q", line), func(sc string) bool { return lastLine(sc) == line })
}

// typeText types text without pressing Enter.
func (p *pane) typeText(text string) { p.s.tmux("send-keys", "-t", "t:"+p.name, "-l", text) }

// keys presses keys named as tmux names them (Enter, Tab, Up, C-c, ...).
func (p *pane) keys(keys ...string) {
	p.s.tmux(append([]string{"send-keys", "-t", "t:" + p.name}, keys...)...)
}

// typeLine types text and presses Enter.
func (p *pane) typeLine(text string) {
	p.typeText(text)
	p.keys("Enter")
}

// rePrompt matches zkcli's prompt at the start of a line.
var rePrompt = regexp.MustCompile(`(?m)^\[zk: [^\]]*\((CONNECTED|CONNECTING|CLOSED|AUTH_FAILED)\) \d+\] ?`)

// stripPrompts removes zkcli's prompts, leaving what was typed after them.
func stripPrompts(s string) string { return rePrompt.ReplaceAllString(s, "") }

// fileHas reports whether the file at path contains text.
func fileHas(path, text string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), text)
}
