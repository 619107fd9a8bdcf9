package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// zkCliSh is the Debian zookeeper package's zkCli.sh.
const zkCliSh = "/usr/share/zookeeper/bin/zkCli.sh"

// needZkCli starts a real ZooKeeper 3.8 for the test, or skips it when
// java, the zookeeper package or zkCli.sh is missing.
func needZkCli(t *testing.T) string {
	t.Helper()
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	if _, err := os.Stat(zkCliSh); err != nil {
		t.Skip("zkCli.sh not installed (apt-get install -y zookeeper): " + err.Error())
	}
	zs, err := realzk.Start("", realzk.Options{})
	if err != nil {
		t.Fatalf("start real ZooKeeper: %v", err)
	}
	t.Cleanup(func() { zs.Stop() })
	return zs.Addr()
}

// zkCliBatch runs the steps through one zkCli.sh session (commands on its
// standard input, standard error merged into standard output, which Java
// flushes line by line) and returns each step's output. A marker command
// after each step, a stat of a missing node, separates the outputs.
func zkCliBatch(t *testing.T, addr string, lines []string) []string {
	t.Helper()
	return zkCliBatchEnv(t, addr, nil, lines)
}

// zkCliBatchEnv is zkCliBatch with env added to zkCli.sh's environment
// (CLIENT_JVMFLAGS, say).
func zkCliBatchEnv(t *testing.T, addr string, env, lines []string) []string {
	t.Helper()
	var in strings.Builder
	in.WriteString("stat /zkcli-mark-start\n")
	for i, l := range lines {
		fmt.Fprintf(&in, "%s\nstat /zkcli-mark-%d\n", l, i)
	}
	in.WriteString("quit\n")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, zkCliSh, "-server", addr)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(in.String())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// The session's exit status is its last command's; only a failure to
	// run it at all matters here.
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("zkCli.sh: %v\n%s", err, out.String())
		}
	}
	text := dropJavaNoise(out.String())
	// zkCli.sh's event thread prints the connection event whenever it
	// runs: usually before the first command's output, but under load
	// after it (once in 20 loaded runs), even after a few commands. The
	// outputs start after a start marker, and the event is taken out
	// wherever it landed.
	if !strings.Contains(text, connectedEvent) {
		t.Fatalf("zkCli.sh did not connect:\n%s", out.String())
	}
	_, text, ok := strings.Cut(text, "Node does not exist: /zkcli-mark-start\n")
	if !ok {
		t.Fatalf("zkCli.sh output has no start marker:\n%s", out.String())
	}
	text = strings.Replace(text, "\nWATCHER::\n\n"+connectedEvent, "", 1)
	outs := make([]string, len(lines))
	for i := range lines {
		mark := fmt.Sprintf("Node does not exist: /zkcli-mark-%d\n", i)
		var ok bool
		outs[i], text, ok = strings.Cut(text, mark)
		if !ok {
			t.Fatalf("zkCli.sh output has no marker %d:\n%s", i, out.String())
		}
	}
	return outs
}

// connectedEvent is how zkCli.sh prints its session's connection.
const connectedEvent = "WatchedEvent state:SyncConnected type:None path:null\n"

// dropJavaNoise removes SLF4J's start-up warnings and zkCli.sh's
// connection banner lines, which are not a command's output.
func dropJavaNoise(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(l, "SLF4J:") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "")
}

// zkcliSteps runs each step as one zkcli invocation and returns the
// outputs (with " (exit N)" appended for a failure, which zkCli.sh's
// session does not show, so callers compare outputs only).
func zkcliSteps(t *testing.T, addr, root string, steps []step) []string {
	t.Helper()
	outs := make([]string, len(steps))
	for i, s := range steps {
		args := strings.Fields(s.expand(root))
		if s.auth {
			args = append([]string{"-auth", "digest:u:p"}, args...)
		}
		outs[i], _ = zkcli(t, addr, args...)
	}
	return outs
}

// TestSideBySide runs one sequence through zkCli.sh against Apache
// ZooKeeper 3.8 and through zkcli against the same server and against
// zkraft, and compares every step's output after normalising zxids and
// times (and the root path, each run having its own).
func TestSideBySide(t *testing.T) { compareSideBySide(t, sequence()) }

// compareSideBySide runs steps in one zkCli.sh session against Apache
// ZooKeeper 3.8, then through zkcli against the same server and against
// zkraft, and compares every step's output once normalised. At most a
// quarter of zkCli.sh's outputs may be empty, so that a zkCli.sh that
// printed nothing cannot pass for a match.
func compareSideBySide(t *testing.T, steps []step) {
	t.Helper()
	zkAddr := needZkCli(t)
	zkraftAddr := startZkraft(t)
	const javaRoot, goRoot = "/zkcli-java", "/zkcli-go"
	lines := make([]string, len(steps))
	for i, s := range steps {
		lines[i] = s.expand(javaRoot)
	}
	want := zkCliBatch(t, zkAddr, lines)
	empty := 0
	for _, w := range want {
		if w == "" {
			empty++
		}
	}
	if empty > len(want)/4 {
		t.Fatalf("%d of zkCli.sh's %d outputs are empty: %q", empty, len(want), want)
	}
	onZK := zkcliSteps(t, zkAddr, goRoot, steps)
	onZkraft := zkcliSteps(t, zkraftAddr, goRoot, steps)
	for i, s := range steps {
		w := normalise(want[i], javaRoot)
		if g := normalise(onZK[i], goRoot); g != w {
			t.Errorf("step %d %q against ZooKeeper:\nzkCli.sh:\n%s\nzkcli:\n%s", i, s.line, w, g)
		}
		if g := normalise(onZkraft[i], goRoot); g != w {
			t.Errorf("step %d %q against zkraft:\nzkCli.sh (ZooKeeper):\n%s\nzkcli (zkraft):\n%s", i, s.line, w, g)
		}
	}
}

// TestOneShotSideBySide compares real one-shot runs of zkCli.sh with
// zkcli's, byte for byte: standard output, standard error and exit status.
func TestOneShotSideBySide(t *testing.T) {
	zkAddr := needZkCli(t)
	if _, code := zkcli(t, zkAddr, "create", "/oneshot", "x"); code != 0 {
		t.Fatal("create /oneshot failed")
	}
	for _, args := range [][]string{
		{"get", "-s", "/oneshot"},
		{"get", "/oneshot/nope"},
		{"ls", "-s", "/"},
		{"getAcl", "-s", "/oneshot"},
		{"create", "/oneshot", "again"},
		{"ls"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, zkCliSh, append([]string{"-server", zkAddr}, args...)...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		cancel()
		javaCode := 0
		if ee, ok := err.(*exec.ExitError); ok {
			javaCode = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("zkCli.sh %v: %v", args, err)
		}
		javaOut := oneShotOutput(o.String())
		javaErr := dropJavaNoise(e.String())
		out, errOut, code := zkcliSplit(t, zkAddr, args...)
		// Not normalised: both read the same node of the same server in the
		// same time zone, so even the zxids and dates must agree.
		if out != javaOut || errOut != javaErr || code != javaCode {
			t.Errorf("%v:\nzkCli.sh: exit %d, stdout:\n%s\nstderr:\n%s\nzkcli: exit %d, stdout:\n%s\nstderr:\n%s",
				args, javaCode, javaOut, javaErr, code, out, errOut)
		}
	}
}

// oneShotOutput removes from a one-shot zkCli.sh's standard output the
// "Connecting to" line it starts with and the connection event its watcher
// prints (missing when the command fails before the event arrives).
func oneShotOutput(s string) string {
	if strings.HasPrefix(s, "Connecting to ") {
		_, s, _ = strings.Cut(s, "\n")
	}
	const event = "\nWATCHER::\n\nWatchedEvent state:SyncConnected type:None path:null\n"
	if i := strings.Index(s, event); i >= 0 {
		s = s[:i] + s[i+len(event):]
	}
	return s
}
