package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// lockTestOptions runs clients for a short window.
func lockTestOptions(t *testing.T, extra ...string) *options {
	t.Helper()
	args := append([]string{"-op", "lock", "-sessions", "3", "-warmup", "200ms", "-duration", "1s"}, extra...)
	var stderr bytes.Buffer
	o, err := parseFlags(args, &stderr)
	if err != nil {
		t.Fatalf("parseFlags(%q): %v\n%s", args, err, stderr.String())
	}
	return o
}

// checkLockRound checks a round on a healthy ensemble: sections done,
// handoffs measured, no error, no leader change.
func checkLockRound(t *testing.T, o *options, res *lockResult, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if res.Sections == 0 || res.Handoffs == 0 || res.Errors != 0 {
		t.Fatalf("%d sections, %d handoffs, %d errors (first: %s); want sections, handoffs, no errors",
			res.Sections, res.Handoffs, res.Errors, res.FirstError)
	}
	if res.P50 <= 0 || res.P50 > res.P99 || res.P99 > res.Max {
		t.Errorf("handoff p50 %v p99 %v max %v: not ordered", res.P50, res.P99, res.Max)
	}
	if res.LongestGap <= 0 || res.LongestGap > latency(o.duration) {
		t.Errorf("longest gap %v, want within the window", res.LongestGap)
	}
	// A healthy ensemble holds no election, but a loaded machine can
	// stall a follower past the 2 s election timeout (once in 20 runs of
	// this package with -race beside a busy loop): reported, not failed.
	// TestLockLeaderKillZkserver3 checks that elections are counted.
	if res.LeaderChanges != 0 || res.Elections != 0 {
		t.Logf("%d leader changes, %d elections on an ensemble meant to be healthy (a loaded machine?)", res.LeaderChanges, res.Elections)
	}
}

// TestGoLockOnEnsemble runs the Go lock client with one client per server
// of an in-process three-node ensemble: the handoffs are split between the
// leader's client and the followers', and the lock directory is removed.
func TestGoLockOnEnsemble(t *testing.T) {
	o := lockTestOptions(t)
	tg := startTestTarget(t, "zkraft3", o)
	res, err := lockRound(context.Background(), o, tg, runGoLock)
	checkLockRound(t, o, res, err)
	if res.ByRole["leader"].Handoffs == 0 || res.ByRole["follower"].Handoffs == 0 {
		t.Errorf("by role %+v, want handoffs to clients of the leader and of followers", res.ByRole)
	}
	if got := rootChildren(t, tg.addrs); !slices.Equal(got, []string{"zookeeper"}) {
		t.Errorf("after the run / has %q, want the lock directory removed", got)
	}
}

// TestGoLockOnFollowers pins every client to a follower (-role follower).
func TestGoLockOnFollowers(t *testing.T) {
	o := lockTestOptions(t, "-role", "follower")
	tg := startTestTarget(t, "zkraft3", o)
	res, err := lockRound(context.Background(), o, tg, runGoLock)
	checkLockRound(t, o, res, err)
	if len(res.ByRole) != 1 || res.ByRole["follower"].Handoffs != res.Handoffs {
		t.Errorf("by role %+v, want every handoff to a follower's client", res.ByRole)
	}
}

// TestCuratorLockOnZkraft runs Apache Curator's InterProcessMutex against
// zkraft: a compatibility check as well as the Curator lock client's test.
func TestCuratorLockOnZkraft(t *testing.T) {
	if _, err := curatorClasspath(); err != nil {
		t.Skipf("Curator lock client unavailable: %v", err)
	}
	cur, err := prepareCurator()
	if err != nil {
		t.Fatal(err)
	}
	defer cur.remove()
	// The JVM's first acquisitions are slow (class loading, interpreted
	// code), more so on a loaded machine: a longer warmup and window.
	o := lockTestOptions(t, "-warmup", "3s", "-duration", "3s")
	tg := startTestTarget(t, "zkraft3", o)
	res, err := lockRound(context.Background(), o, tg, cur.run)
	checkLockRound(t, o, res, err)
	if got := rootChildren(t, tg.addrs); !slices.Equal(got, []string{"zookeeper"}) {
		t.Errorf("after the run / has %q, want the lock directory removed", got)
	}
}

// TestRunLockCompareJSON runs -op lock through realMain: rounds alternate
// targets, and the medians and ratios are reported.
func TestRunLockCompareJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-compare", "zkraft,zkraft", "-op", "lock", "-lockclients", "go", "-sessions", "2",
		"-warmup", "0s", "-duration", "300ms", "-rounds", "2", "-json"}
	if code := realMain(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	var doc struct {
		Rounds  []lockResult  `json:"rounds"`
		Medians []lockSummary `json:"medians"`
		Ratios  []lockRatio   `json:"ratios"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	var order []string
	for _, r := range doc.Rounds {
		order = append(order, r.Target+" "+r.Client)
		if r.Sections == 0 {
			t.Errorf("round %d %s: no sections", r.Round, r.Target)
		}
	}
	if !slices.Equal(order, []string{"A go", "B go", "A go", "B go"}) {
		t.Errorf("rounds ran as %v, want A B A B", order)
	}
	if len(doc.Medians) != 2 || len(doc.Ratios) != 1 || doc.Ratios[0].Of != "A go / B go" ||
		doc.Ratios[0].Median["sections_per_sec"] <= 0 {
		t.Errorf("medians %+v ratios %+v, want two medians and one positive ratio", doc.Medians, doc.Ratios)
	}
}

func TestLockFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-op", "lock", "-kills", "-1"}, "-kills -1 must not be negative"},
		{[]string{"-op", "get", "-kills", "2"}, "-kills applies to -op lock"},
		{[]string{"-op", "lock", "-lockclients", "go,zk"}, `-lockclients "go,zk"`},
	} {
		var stderr bytes.Buffer
		if _, err := parseFlags(c.args, &stderr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseFlags(%q): %v, want an error containing %q", c.args, err, c.want)
		}
	}
	o := lockTestOptions(t, "-lockclients", "curator, go")
	if !slices.Equal(o.lockClientList, []string{"curator", "go"}) {
		t.Errorf("-lockclients 'curator, go' gives %q", o.lockClientList)
	}
}

// TestKillsNeedProcesses: an in-process ensemble cannot have its leader
// killed, and zkbench says so before running anything.
func TestKillsNeedProcesses(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-servers", "zkraft", "-op", "lock", "-kills", "1", "-lockclients", "go"}
	if code := realMain(context.Background(), args, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "not an ensemble whose processes zkbench runs") {
		t.Errorf("exit %d, stderr %q; want 1 and the reason", code, stderr.String())
	}
}

// TestLeaderWatchFlag: -leaderwatch reports, per round of an ordinary op,
// that a healthy ensemble under load changed neither leader nor epoch.
func TestLeaderWatchFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-servers", "zkraft3", "-op", "set", "-sessions", "2", "-keys", "10",
		"-warmup", "100ms", "-duration", "1s", "-leaderwatch", "-json"}
	if code := realMain(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	var doc jsonReport
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	if len(doc.Rounds) != 1 || doc.Rounds[0].Leader == nil || *doc.Rounds[0].Leader != (leaderChanges{}) {
		t.Errorf("rounds %+v, want one with zero leader changes and elections", doc.Rounds)
	}
}
