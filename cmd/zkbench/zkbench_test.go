package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// testOptions is a short, small workload: its runs take about 200 ms.
func testOptions(t *testing.T, op string) *options {
	t.Helper()
	// 200 ms gives every op many rounds on a quiet machine; connect, a
	// whole session set up and closed per op, got none in that window
	// once in 20 runs beside a busy loop with -race, so it gets 2 s.
	duration := "200ms"
	if op == "connect" {
		duration = "2s"
	}
	args := []string{"-op", op, "-sessions", "2", "-inflight", "2", "-keys", "20",
		"-warmup", "20ms", "-duration", duration, "-size", "10"}
	var stderr bytes.Buffer
	o, err := parseFlags(args, &stderr)
	if err != nil {
		t.Fatalf("parseFlags(%q): %v\n%s", args, err, stderr.String())
	}
	return o
}

func startTestTarget(t *testing.T, spec string, o *options) *target {
	t.Helper()
	tg, err := startTarget(context.Background(), spec, o)
	if err != nil {
		t.Fatalf("start %s: %v", spec, err)
	}
	t.Cleanup(func() { tg.stop() })
	return tg
}

// rootChildren lists the children of / on the target.
func rootChildren(t *testing.T, addrs []string) []string {
	t.Helper()
	s, err := connect(context.Background(), addrs, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if _, err := s.Sync("/"); err != nil { // a follower may lag behind
		t.Fatal(err)
	}
	children, _, err := s.Children("/")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(children)
	return children
}

func TestEveryOpAgainstZkraft(t *testing.T) {
	tg := startTestTarget(t, "zkraft", testOptions(t, "get"))
	for _, op := range opNames {
		if k, _ := parseOp(op); k.scale() || k == opStart || k == opLock {
			continue // scale_test.go, start_test.go, lock_test.go
		}
		t.Run(op, func(t *testing.T) {
			res, err := runBench(context.Background(), testOptions(t, op), tg.addrs)
			if err != nil {
				t.Fatal(err)
			}
			if res.Ops == 0 || res.Errors != 0 {
				t.Fatalf("%d ops, %d errors (first: %s); want some ops and no errors", res.Ops, res.Errors, res.FirstError)
			}
			if res.P50 <= 0 || res.P50 > res.P99 || res.P99 > res.P999 || res.P999 > res.Max {
				t.Errorf("percentiles not ordered: p50 %v p99 %v p99.9 %v max %v", res.P50, res.P99, res.P999, res.Max)
			}
			if got := rootChildren(t, tg.addrs); !slices.Equal(got, []string{"zookeeper"}) {
				t.Errorf("after the run / has %q, want the bench root cleaned up", got)
			}
		})
	}
}

// runJSON runs zkbench with args (which ask for -json) and decodes its
// report.
func runJSON(t *testing.T, args ...string) jsonReport {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := realMain(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	var doc jsonReport
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	return doc
}

func TestCompareJSON(t *testing.T) {
	doc := runJSON(t, "-compare", "zkraft,zkraft", "-op", "mix", "-mix", "50", "-sessions", "2",
		"-keys", "10", "-warmup", "0s", "-duration", "100ms", "-rounds", "2", "-json")
	var order []string
	for _, r := range doc.Rounds {
		order = append(order, r.Target)
		if r.Ops == 0 || r.Errors != 0 {
			t.Errorf("round %d %s: %d ops, %d errors", r.Round, r.Target, r.Ops, r.Errors)
		}
	}
	if !slices.Equal(order, []string{"A", "B", "A", "B"}) {
		t.Errorf("rounds ran as %v, want A B A B", order)
	}
	if len(doc.Summary) != len(metrics) || doc.Summary[0].Metric != "ops_per_sec" || doc.Summary[0].Ratio <= 0 {
		t.Errorf("summary %+v, want a positive ops_per_sec ratio first and one row per metric", doc.Summary)
	}
	if doc.Config.Op != "mix" || doc.Config.MixGetPercent != 50 || len(doc.Targets) != 2 {
		t.Errorf("config %+v targets %+v", doc.Config, doc.Targets)
	}
}

func TestCompareText(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-compare", "zkraft,zkraft", "-op", "get", "-sessions", "1", "-keys", "5",
		"-warmup", "0s", "-duration", "50ms", "-rounds", "1"}
	if code := realMain(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	for _, want := range []string{"A: zkraft", "B: zkraft", "median of 1 rounds", "ops/s", "p99.9"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestCompareThreeTargets(t *testing.T) {
	args := []string{"-compare", "zkraft;zkraft;zkraft", "-op", "set", "-sessions", "1", "-keys", "5",
		"-warmup", "0s", "-duration", "50ms", "-rounds", "2", "-json"}
	doc := runJSON(t, args...)
	var order []string
	for _, r := range doc.Rounds {
		order = append(order, r.Target)
	}
	if !slices.Equal(order, []string{"A", "B", "C", "A", "B", "C"}) {
		t.Errorf("rounds ran as %v, want A B C A B C", order)
	}
	if len(doc.Summary) == 0 || len(doc.Summary[0].More) != 1 || doc.Summary[0].More[0].Target != "C" || doc.Summary[0].More[0].Ratio <= 0 {
		t.Errorf("summary %+v: want C's median and A/C in more", doc.Summary)
	}

	var stdout, stderr bytes.Buffer
	args = args[:len(args)-1] // text
	args[len(args)-1] = "1"
	if code := realMain(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	for _, want := range []string{"C: zkraft", "A/B      A/C\n", "(A/B, A/C are the medians of the per-round ratios"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestSummarizeThreeTargets(t *testing.T) {
	res := func(round int, target string, ops float64) *result {
		return &result{Round: round, Target: target, OpsPerSec: ops}
	}
	rows := summarizeAB([]*result{res(1, "A", 100), res(1, "B", 50), res(1, "C", 400),
		res(2, "A", 300), res(2, "B", 100), res(2, "C", 300), res(3, "A", 200), res(3, "B", 100), res(3, "C", 100)})
	r := rows[0]
	if r.Metric != "ops_per_sec" || r.A != 200 || r.B != 100 || r.Ratio != 2 {
		t.Errorf("A/B %+v: want medians 200, 100, ratio median of 2, 3, 2 = 2", r)
	}
	if len(r.More) != 1 || r.More[0] != (sideSummary{Target: "C", Median: 300, Ratio: 1}) {
		t.Errorf("C %+v: want median 300 and A/C median of 0.25, 1, 2 = 1", r.More)
	}
	if h := summaryHeader([]string{"A", "B", "C"}); h != "           A            B            C      A/B      A/C" {
		t.Errorf("header %q", h)
	}
	two := summarizeAB([]*result{res(1, "A", 100), res(1, "B", 50)})
	if two[0].Ratio != 2 || two[0].More != nil {
		t.Errorf("two targets: %+v", two[0])
	}
}

func TestZooKeeperUnavailable(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no java
	for _, spec := range []string{"zookeeper", "zookeeper3"} {
		var stdout, stderr bytes.Buffer
		code := realMain(context.Background(), []string{"-compare", "zkraft," + spec}, &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "target "+spec+": Apache ZooKeeper not available") {
			t.Errorf("%s: exit %d, stderr %q; want 1 and the reason", spec, code, stderr.String())
		}
	}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-op", "bogus"}, `unknown -op "bogus"`},
		{[]string{"-sessions", "0"}, "-sessions 0 must be at least 1"},
		{[]string{"-inflight", "-1"}, "-inflight -1 must be at least 1"},
		{[]string{"-mix", "101"}, "-mix 101 must be between 0 and 100"},
		{[]string{"-size", "2000000"}, "-size 2000000 must be between"},
		{[]string{"-duration", "0s"}, "-duration 0s must be positive"},
		{[]string{"-compare", "zkraft"}, "want A,B"},
		{[]string{"-compare", "zkraft,zookeeper,zkraft3,zkraft,zkraft"}, "at most 4 targets"},
		{[]string{"-servers", "zookeepr"}, `target "zookeepr"`},
		{[]string{"-servers", "zkserver4"}, "one of zkraft, zkraft3, zkserver, zkserver3, zkserver5, zkserver3o2, zookeeper, zookeeper3, zookeeper5, zookeeper3o2"},
		{[]string{"-servers", "zkraft", "-compare", "zkraft,zkraft"}, "exclude each other"},
		{[]string{"-forcesync=maybe"}, "want yes or no"},
		{[]string{"-nosuchflag"}, "flag provided but not defined"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := realMain(context.Background(), c.args, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) || !strings.Contains(stderr.String(), "Usage:") {
			t.Errorf("%q: exit %d, stderr %q; want 2, %q and the usage", c.args, code, stderr.String(), c.want)
		}
	}
}

func TestFlagsAccepted(t *testing.T) {
	cases := []struct {
		args      []string
		specs     []string
		rounds    int
		forceSync yesNo
	}{
		{nil, []string{"127.0.0.1:2181"}, 1, false},
		{[]string{"-compare", "zkraft,zookeeper", "-forcesync=yes"}, []string{"zkraft", "zookeeper"}, 3, true},
		{[]string{"-compare", "a:1,b:2;zkraft3", "-rounds", "5", "-forcesync"}, []string{"a:1,b:2", "zkraft3"}, 5, true},
		{[]string{"-servers", "h:2181,[::1]:2182", "-op", "create+delete"}, []string{"h:2181,[::1]:2182"}, 1, false},
		{[]string{"-compare", "zkserver3;zookeeper3", "-zkserver", "/x/zkserver", "-forcesync=yes"}, []string{"zkserver3", "zookeeper3"}, 3, true},
		{[]string{"-compare", "zkserver,zookeeper"}, []string{"zkserver", "zookeeper"}, 3, false},
		{[]string{"-compare", "zkserver3slow;zkserver3tmpfs;zookeeper3slow", "-forcesync=yes", "-tmpfsdir", "/mnt/t", "-diskdir", "/var/d"},
			[]string{"zkserver3slow", "zkserver3tmpfs", "zookeeper3slow"}, 3, true},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		o, err := parseFlags(c.args, &stderr)
		if err != nil {
			t.Errorf("%q: %v\n%s", c.args, err, stderr.String())
			continue
		}
		if !slices.Equal(o.specs, c.specs) || o.rounds != c.rounds || o.forceSync != c.forceSync {
			t.Errorf("%q: specs %q rounds %d forcesync %v; want %q %d %v", c.args, o.specs, o.rounds, o.forceSync, c.specs, c.rounds, c.forceSync)
		}
	}
}

func TestZkraft3Ensemble(t *testing.T) {
	o := testOptions(t, "create")
	tg := startTestTarget(t, "zkraft3", o)
	if len(tg.addrs) != 3 {
		t.Fatalf("addresses %q, want three", tg.addrs)
	}
	for _, op := range []string{"create", "mix"} {
		res, err := runBench(context.Background(), testOptions(t, op), tg.addrs)
		if err != nil {
			t.Fatal(err)
		}
		if res.Ops == 0 || res.Errors != 0 {
			t.Fatalf("%s: %d ops, %d errors (first: %s); want some ops and no errors", op, res.Ops, res.Errors, res.FirstError)
		}
	}
	if got := rootChildren(t, tg.addrs); !slices.Equal(got, []string{"zookeeper"}) {
		t.Errorf("after the runs / has %q, want the bench roots cleaned up", got)
	}
}
