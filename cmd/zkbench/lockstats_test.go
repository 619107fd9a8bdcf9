package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

func TestLongestGap(t *testing.T) {
	for _, c := range []struct {
		ts         []time.Duration
		gap, start time.Duration
	}{
		{nil, 10 * ms, 0},                                         // nothing completed: the whole window
		{[]time.Duration{2 * ms}, 8 * ms, 2 * ms},                 // from the last one to the window's end
		{[]time.Duration{7 * ms, 8 * ms}, 7 * ms, 0},              // from the window's start to the first
		{[]time.Duration{5 * ms, 1 * ms, 4 * ms}, 5 * ms, 5 * ms}, // unsorted input
		{[]time.Duration{1 * ms, 6 * ms, 9 * ms}, 5 * ms, 1 * ms},
	} {
		gap, start := longestGap(c.ts, 10*ms)
		if gap != c.gap || start != c.start {
			t.Errorf("longestGap(%v) = %v at %v, want %v at %v", c.ts, gap, start, c.gap, c.start)
		}
	}
}

func TestSummarizeLockCountsOnlyTheWindow(t *testing.T) {
	run := &lockRun{records: []lockRecord{
		{client: 0, acquired: -5 * ms, handoff: 1 * ms, done: -4 * ms}, // warmup: ignored
		{client: 1, acquired: -1 * ms, handoff: 2 * ms, done: 1 * ms},  // acquired in warmup: only its completion counts
		{client: 0, acquired: 2 * ms, handoff: 3 * ms, done: 3 * ms},
		{client: 1, acquired: 4 * ms, handoff: 5 * ms, done: -1},       // release failed: no section
		{client: 2, acquired: 6 * ms, handoff: -1, done: 7 * ms},       // first acquisition: no handoff
		{client: 0, acquired: 9 * ms, handoff: 7 * ms, done: 11 * ms},  // completed after the window
		{client: 1, acquired: 12 * ms, handoff: 9 * ms, done: 13 * ms}, // after the window: ignored
	}}
	roles := []string{"leader", "follower", "follower"}
	s := summarizeLock(run, 10*ms, func(c int) string { return roles[c] })
	if s.Sections != 3 || s.SectionsSec != 300 {
		t.Errorf("sections %d (%v/s), want 3 (300/s): done at 1, 3 and 7 ms", s.Sections, s.SectionsSec)
	}
	if s.Handoffs != 3 || !near(s.P50, 5*ms) || s.Max != latency(7*ms) {
		t.Errorf("handoffs %d p50 %v max %v, want 3, 5ms, 7ms", s.Handoffs, s.P50, s.Max)
	}
	if l, f := s.ByRole["leader"], s.ByRole["follower"]; l.Handoffs != 2 || f.Handoffs != 1 || !near(f.P50, 5*ms) {
		t.Errorf("by role %+v, want 2 handoffs to the leader's clients and one of 5ms to a follower's", s.ByRole)
	}
	if s.LongestGap != latency(4*ms) || s.GapStart != latency(3*ms) {
		t.Errorf("longest gap %v at %v, want 4ms at 3ms", s.LongestGap, s.GapStart)
	}
	if s := summarizeLock(run, 10*ms, func(int) string { return "" }); s.ByRole != nil {
		t.Errorf("unpinned clients: by role %+v, want none", s.ByRole)
	}
}

func TestParseCuratorOutput(t *testing.T) {
	out := "ready\nstart\nacq 0 -100 -1 50\nacq 1 200 150 -1\nacq 0 400 30 500\nerr 1 2 KeeperException: ConnectionLoss\nerr 0 1 x y\nend\n"
	started := 0
	run, err := parseCuratorOutput(strings.NewReader(out), func() { started++ })
	if err != nil {
		t.Fatal(err)
	}
	if started != 1 {
		t.Errorf("started called %d times, want once", started)
	}
	want := []lockRecord{{0, -100, -1, 50}, {1, 200, 150, -1}, {0, 400, 30, 500}}
	if len(run.records) != len(want) {
		t.Fatalf("records %+v, want %+v", run.records, want)
	}
	for i := range want {
		if run.records[i] != want[i] {
			t.Errorf("record %d = %+v, want %+v", i, run.records[i], want[i])
		}
	}
	if run.errors != 3 || run.first != "KeeperException: ConnectionLoss" {
		t.Errorf("errors %d first %q, want 3 and the first message", run.errors, run.first)
	}
}

func TestParseCuratorOutputRejects(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"ready\nend\n", errNoStart.Error()},
		{"ready\n", errNoStart.Error()},
		{"start\nacq 0 1 2 3\n", "without its end line"},
		{"start\nacq 0 1 2\nend\n", "want acq CLIENT"},
		{"start\nacq 0 1 x 3\nend\n", "invalid syntax"},
		{"start\nacq -1 1 2 3\nend\n", "negative client"},
		{"start\nerr 0\nend\n", "want err CLIENT COUNT"},
		{"start\nerr 0 many x\nend\n", "invalid syntax"},
		{"start\nException in thread main\nend\n", `printed "Exception in thread main"`},
	} {
		_, err := parseCuratorOutput(strings.NewReader(c.out), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parse %q: error %v, want one containing %q", c.out, err, c.want)
		}
	}
	if _, err := parseCuratorOutput(strings.NewReader("ready\n"), nil); !errors.Is(err, errNoStart) {
		t.Errorf("error %v, want errNoStart", err)
	}
}

func TestKillTimes(t *testing.T) {
	got := killTimes(2, 24*time.Second)
	if len(got) != 2 || got[0] != 8*time.Second || got[1] != 16*time.Second {
		t.Errorf("killTimes(2, 24s) = %v, want [8s 16s]", got)
	}
	if got := killTimes(0, time.Second); len(got) != 0 {
		t.Errorf("killTimes(0) = %v, want none", got)
	}
}

func TestParseSrvr(t *testing.T) {
	out := "Zookeeper version: 3.8.0\nLatency min/avg/max: 0/0.1/5\nZxid: 0x300000a2f\nMode: follower\nNode count: 5\n"
	mode, zxid, ok := parseSrvr(out)
	if !ok || mode != "follower" || zxid != 0x300000a2f || zxid>>32 != 3 {
		t.Errorf("parseSrvr = %q %#x %v, want follower 0x300000a2f true", mode, zxid, ok)
	}
	if _, _, ok := parseSrvr("This ZooKeeper instance is not currently serving requests\n"); ok {
		t.Error("parseSrvr of a server that does not serve: ok, want not")
	}
}

func TestLeaderWatchCounts(t *testing.T) {
	w := &leaderWatch{epoch: -1}
	for _, p := range []struct {
		leader string
		epoch  int64
	}{
		{"a", 0}, {"a", 1}, // the first write of a fresh ensemble: no election
		{"a", 1}, {"", -1}, // a poll that reached no server changes nothing
		{"", 1}, {"b", 2}, {"b", 2}, {"b", 3}, // b re-elected: an election, not a change
		{"a", 4},
	} {
		w.observe(p.leader, p.epoch)
	}
	if w.changes != 2 || w.elections != 3 {
		t.Errorf("changes %d elections %d, want 2 and 3", w.changes, w.elections)
	}
}

// near reports whether l is d within the histogram's resolution (0.8%).
func near(l latency, d time.Duration) bool {
	return time.Duration(l) >= d && time.Duration(l) <= d+d/100
}
