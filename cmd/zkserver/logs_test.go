package main

import (
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// logLines returns the lines of p's current log that match re.
func (p *proc) logLines(re *regexp.Regexp) []string {
	out, _ := os.ReadFile(p.logPath)
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if re.MatchString(l) {
			lines = append(lines, l)
		}
	}
	return lines
}

// waitLog waits until p's log has at least n lines matching re.
func (p *proc) waitLog(t *testing.T, re *regexp.Regexp, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for len(p.logLines(re)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: fewer than %d log lines match %s within %v", p.addr, n, re, within)
		}
		time.Sleep(20 * time.Millisecond) // poll interval of the condition above
	}
}

var (
	errorLine      = regexp.MustCompile(`level=ERROR`)
	heartbeatFail  = regexp.MustCompile(`level=DEBUG msg="failed to heartbeat to"`)
	peerDown       = regexp.MustCompile(`level=WARN msg="peer unreachable"`)
	peerUp         = regexp.MustCompile(`level=INFO msg="peer reachable again"`)
	leaderChanged  = regexp.MustCompile(`level=INFO msg="leader changed" leader=\d`)
	raftInsideSlog = regexp.MustCompile(`\[(ERROR|WARN|INFO)\] raft`)
)

// TestEnsembleLogsArePlain runs a three-process ensemble at debug level,
// stops a follower and checks that the leader logs one WARN for it however
// many heartbeats fail, one INFO when it is back, that every server logs
// its leader, and that a clean stop (SIGINT) logs no ERROR anywhere.
func TestEnsembleLogsArePlain(t *testing.T) {
	t.Setenv(logLevelEnv, "debug")
	bin := buildServer(t)
	procs := startEnsemble(t, bin)
	leader := procs[leaderOf(t, procs)]
	for _, p := range procs {
		p.waitLog(t, leaderChanged, 1, 20*time.Second)
	}

	down := procs[0]
	if down == leader {
		down = procs[1]
	}
	down.kill(t)
	// Raft backs off 10 ms, 10, 20, 40, ... between failed heartbeats:
	// eight failures span several back-offs.
	leader.waitLog(t, heartbeatFail, 8, 60*time.Second)
	require.Len(t, leader.logLines(peerDown), 1, "one WARN for the stopped peer, not one per heartbeat")

	down.start(t, bin)
	require.NoError(t, down.waitUp())
	leader.waitLog(t, peerUp, 1, 30*time.Second)
	require.Len(t, leader.logLines(peerDown), 1)

	for _, p := range procs {
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
	}
	for _, p := range procs {
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s did not stop within 30s of SIGINT", p.addr)
		}
		require.Empty(t, p.logLines(errorLine), "no ERROR on %s over a peer outage and a clean stop", p.addr)
		require.Empty(t, p.logLines(raftInsideSlog), "Raft's lines are slog records, not hclog text inside them")
	}
}
