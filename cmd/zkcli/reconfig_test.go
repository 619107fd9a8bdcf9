package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/server"
)

// superAuth is -auth for realzk's and the test cluster's super user.
var superAuth = []string{"-auth", "digest:super:test"}

// serverLine returns the server.id line of a configuration.
func serverLine(t *testing.T, config, id string) string {
	t.Helper()
	for _, l := range strings.Split(config, "\n") {
		if strings.HasPrefix(l, "server."+id+"=") {
			return l
		}
	}
	t.Fatalf("no server.%s in\n%s", id, config)
	return ""
}

// TestReconfigZkraft removes a member of a three-server zkraft cluster
// and adds it back with zkcli's reconfig, and checks config -c.
func TestReconfigZkraft(t *testing.T) {
	c := integration.StartCluster(t, 3, integration.WithServerConfig(func(cfg *server.Config) {
		cfg.ReconfigEnabled = true
		cfg.SuperDigest = realzk.SuperDigest
	}))
	leader := c.WaitForLeader()
	addr := c.Servers[leader].Addr()
	victimIdx := (leader + 1) % 3
	victim := []string{"1", "2", "3"}[victimIdx]
	config, code := zkcli(t, addr, "config")
	if code != 0 {
		t.Fatalf("config: %s", config)
	}
	// As in ZooKeeper, a joining server's line names its client address.
	line := serverLine(t, config, victim) + ";" + c.Servers[victimIdx].Addr()

	if got, code := zkcli(t, addr, "reconfig", "-remove", victim); code != 1 || got != "Insufficient permission : \n" {
		t.Errorf("reconfig without credentials: exit %d, %q", code, got)
	}
	got, code := zkcli(t, addr, append(superAuth, "reconfig", "-remove", victim)...)
	if code != 0 || !strings.HasPrefix(got, "Committed new configuration:\n") || strings.Contains(got, "server."+victim+"=") {
		t.Fatalf("reconfig -remove %s: exit %d\n%s", victim, code, got)
	}
	cc, _ := zkcli(t, addr, "config", "-c")
	// zkraft's initial server lines name no client address.
	if !regexp.MustCompile(`^[0-9a-f]+ ,\n$`).MatchString(cc) {
		t.Errorf("config -c with two members: %q", cc)
	}
	got, code = zkcli(t, addr, append(superAuth, "reconfig", "-s", "-add", line)...)
	if code != 0 || !strings.Contains(got, line+"\n") || !strings.Contains(got, "\ndataVersion = ") {
		t.Fatalf("reconfig -s -add %s: exit %d\n%s", line, code, got)
	}
	cc, _ = zkcli(t, addr, "config", "-c")
	if !strings.Contains(cc, c.Servers[victimIdx].Addr()) {
		t.Errorf("config -c after the re-added member: %q", cc)
	}
	if got, code := zkcli(t, addr, append(superAuth, "reconfig", "-v", "1", "-remove", victim)...); code != 1 || got != "version No is not valid : \n" {
		t.Errorf("reconfig with a stale version: exit %d, %q", code, got)
	}
}

var reConfigVersion = regexp.MustCompile(`(?m)^version=[0-9a-f]+$|^[0-9a-f]+ `)

// TestReconfigSideBySide runs reconfig's cases through zkCli.sh and
// through zkcli against a three-server Apache ZooKeeper 3.8 ensemble with
// reconfigEnabled, and compares the outputs (configuration versions
// hidden). The membership ends as it began, so both see the same.
func TestReconfigSideBySide(t *testing.T) {
	needZkCli(t)
	ens, err := realzk.StartEnsemble("", 3, realzk.Options{ExtraConfig: map[string]string{"reconfigEnabled": "true"}})
	if err != nil {
		t.Fatalf("start ZooKeeper ensemble: %v", err)
	}
	t.Cleanup(func() { ens.Stop() })
	// The sessions use member 1; the member removed and added back is a
	// follower, so that no step changes the leader (which would cut the
	// sessions at a moment that differs between the two runs).
	addr := ens.Addrs()[0]
	victim := "3"
	if mode, err := realzk.Mode(ens.Addrs()[2], 5*time.Second); err != nil || mode == "leader" {
		victim = "2"
	}
	config, _ := zkcli(t, addr, "config")
	var others []string
	for _, id := range []string{"1", "2", "3"} {
		if id != victim {
			others = append(others, serverLine(t, config, id))
		}
	}
	victimLine := serverLine(t, config, victim)
	members := strings.Join(append(others, victimLine), ",")
	lines := []string{
		"config -c",
		"reconfig -remove " + victim,
		"reconfig",
		"reconfig -members " + members + " -add " + victimLine,
		"reconfig -file /nonexistent.cfg",
		"reconfig -v zz -remove " + victim,
		"addauth digest super:test",
		"reconfig -v 1 -remove " + victim,
		"reconfig -remove " + victim,
		"config -c",
		"reconfig -add " + victimLine,
		"reconfig -s -members " + members,
		"config",
	}
	steps := make([]step, len(lines))
	for i, l := range lines {
		steps[i] = step{line: l}
	}
	want := zkCliBatch(t, addr, lines)
	for i, s := range steps {
		args := append([]string{}, strings.Fields(s.line)...)
		if i > 6 {
			args = append(superAuth, args...)
		}
		got, _ := zkcli(t, addr, args...)
		w := normalise(reConfigVersion.ReplaceAllString(want[i], "VERSION "), "\x00")
		if g := normalise(reConfigVersion.ReplaceAllString(got, "VERSION "), "\x00"); g != w {
			t.Errorf("step %d %q:\nzkCli.sh:\n%s\nzkcli:\n%s", i, s.line, w, g)
		}
	}
}
