package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// startSASLRealZK starts Apache ZooKeeper 3.8 with serverJAAS's logins
// and the SASL ACL provider, or skips as needZkCli does.
func startSASLRealZK(t *testing.T) string {
	t.Helper()
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	if _, err := os.Stat(zkCliSh); err != nil {
		t.Skip("zkCli.sh not installed (apt-get install -y zookeeper): " + err.Error())
	}
	jaasPath := filepath.Join(t.TempDir(), "server-jaas.conf")
	if err := os.WriteFile(jaasPath, []byte(serverJAAS), 0o600); err != nil {
		t.Fatal(err)
	}
	zs, err := realzk.Start("", realzk.Options{
		ExtraConfig: map[string]string{"authProvider.1": "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"},
		SystemProps: map[string]string{"java.security.auth.login.config": jaasPath},
	})
	if err != nil {
		t.Fatalf("start real ZooKeeper with SASL: %v", err)
	}
	t.Cleanup(func() { zs.Stop() })
	return zs.Addr()
}

// TestSASLSideBySide logs in as bob with the same JAAS file through
// zkCli.sh (CLIENT_JVMFLAGS) and through zkcli (the same -D flag) against
// Apache ZooKeeper 3.8, and through zkcli against zkraft: whoami, an ACL
// naming sasl:bob and reading the node it guards give the same output.
// whoami's lines are compared in any order: ZooKeeper lists the sasl and
// ip ids in either order from one run to the next (zkCli.sh and zkcli
// alike), zkraft always ip first.
func TestSASLSideBySide(t *testing.T) {
	zkAddr := startSASLRealZK(t)
	jaasFlag := "-Djava.security.auth.login.config=" + clientJAAS(t, "Client", "bobsecret")
	lines := []string{"whoami", "create /sbs x sasl:bob:cdrwa", "getAcl /sbs", "get /sbs"}
	want := zkCliBatchEnv(t, zkAddr, []string{"CLIENT_JVMFLAGS=" + jaasFlag}, lines)
	// The session's login event, which one-shot zkcli does not print:
	// before whoami's output, or, when zkCli.sh's event thread ran
	// early, before the start marker (zkCliBatchEnv drops that part).
	login, rest, ok := strings.Cut(want[0], "Auth scheme")
	if !ok || login != "" && login != watcherText(saslAuthenticatedEvent) {
		t.Fatalf("zkCli.sh whoami: %q", want[0])
	}
	want[0] = "Auth scheme" + rest
	zkcli(t, zkAddr, jaasFlag, "delete", "/sbs")
	for name, addr := range map[string]string{"ZooKeeper": zkAddr, "zkraft": startSASLZkraft(t)} {
		for i, l := range lines {
			got, _ := zkcli(t, addr, append([]string{jaasFlag}, strings.Fields(l)...)...)
			if l == "whoami" {
				got, want[i] = sortedLines(got), sortedLines(want[i])
			}
			if got != want[i] {
				t.Errorf("%s: %s: zkcli %q, zkCli.sh %q", name, l, got, want[i])
			}
		}
	}
}

// sortedLines returns s's lines sorted.
func sortedLines(s string) string {
	l := strings.SplitAfter(s, "\n")
	sort.Strings(l)
	return strings.Join(l, "")
}

// TestSASLWrongPasswordSideBySide: with a wrong password zkCli.sh ends in
// AUTH_FAILED, its command failing with AuthFailed and status 1; zkcli
// fails with AUTH_FAILED and status 1 against the same server.
func TestSASLWrongPasswordSideBySide(t *testing.T) {
	addr := startSASLRealZK(t)
	wrong := "-Djava.security.auth.login.config=" + clientJAAS(t, "Client", "nope")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, zkCliSh, "-server", addr, "ls", "/")
	cmd.Env = append(os.Environ(), "CLIENT_JVMFLAGS="+wrong)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "KeeperErrorCode = AuthFailed for /") {
		t.Fatalf("zkCli.sh: %v\n%s", err, out)
	}
	got, code := zkcli(t, addr, wrong, "ls", "/")
	if code != 1 || !strings.Contains(got, "AUTH_FAILED") || !strings.Contains(got, "KeeperErrorCode = AuthFailed") {
		t.Errorf("zkcli: exit %d\n%s", code, got)
	}
}
