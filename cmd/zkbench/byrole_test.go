package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// fakeWorker is a worker on session s that recorded the given latencies.
func fakeWorker(s *session, errs uint64, ds ...time.Duration) *worker {
	wk := &worker{sess: s, hist: newHistogram(), errors: errs}
	for _, d := range ds {
		wk.hist.record(d)
	}
	return wk
}

func TestSummarizeRoles(t *testing.T) {
	leader := &session{server: "h:1", role: "leader"}
	f1 := &session{server: "h:2", role: "follower"}
	f2 := &session{server: "h:3", role: "follower"}
	f3 := &session{server: "h:3", role: "follower"}
	workers := []*worker{
		fakeWorker(f1, 0, 3*time.Millisecond, 3*time.Millisecond),
		fakeWorker(leader, 1, time.Millisecond),
		fakeWorker(f2, 0, 3*time.Millisecond),
		fakeWorker(f3, 0, 5*time.Millisecond),
		fakeWorker(leader, 0, time.Millisecond), // a second worker on the same session
	}
	got := summarizeRoles(workers, 2*time.Second)
	if len(got) != 2 || got[0].Role != "leader" || got[1].Role != "follower" {
		t.Fatalf("roles %+v, want leader then follower", got)
	}
	l, f := got[0], got[1]
	if l.Servers != 1 || l.Sessions != 1 || l.Ops != 2 || l.Errors != 1 || l.OpsPerSec != 1 || l.P50 != latency(time.Millisecond) {
		t.Errorf("leader %+v: want 1 server, 1 session, 2 ops, 1 error, 1 op/s, p50 1ms", l)
	}
	near := func(l latency, d time.Duration) bool { return (time.Duration(l) - d).Abs() <= d/50 } // the histogram's buckets
	if f.Servers != 2 || f.Sessions != 3 || f.Ops != 4 || f.OpsPerSec != 2 || !near(f.P50, 3*time.Millisecond) || !near(f.Max, 5*time.Millisecond) {
		t.Errorf("follower %+v: want 2 servers, 3 sessions, 4 ops, 2 ops/s, p50 3ms, max 5ms", f)
	}
	// Sessions without a role (a standalone server) give no breakdown.
	if got := summarizeRoles([]*worker{fakeWorker(&session{}, 0, time.Millisecond)}, time.Second); got != nil {
		t.Errorf("no roles: %+v, want nil", got)
	}
}

func TestSummarizeRolesAB(t *testing.T) {
	role := func(name string, ops float64, p50 time.Duration) roleResult {
		return roleResult{Role: name, OpsPerSec: ops, P50: latency(p50), P99: latency(2 * p50)}
	}
	results := []*result{
		{Round: 1, Target: "A", ByRole: []roleResult{role("follower", 400, 2*time.Millisecond), role("leader", 100, time.Millisecond)}},
		{Round: 1, Target: "B", ByRole: []roleResult{role("leader", 50, 4*time.Millisecond), role("follower", 100, 8*time.Millisecond)}},
		{Round: 2, Target: "A", ByRole: []roleResult{role("leader", 300, time.Millisecond)}},
		{Round: 2, Target: "B", ByRole: []roleResult{role("leader", 100, time.Millisecond), role("observer", 1, time.Millisecond)}},
	}
	rows := summarizeRolesAB(results)
	byKey := map[string]roleSummaryRow{}
	var order []string
	for _, r := range rows {
		byKey[r.Role+" "+r.Metric] = r
		order = append(order, r.Role)
	}
	if strings.Join(order, ",") != "leader,leader,leader,follower,follower,follower" {
		t.Errorf("rows in role order %v; want leader's three, then follower's (observer has no A side)", order)
	}
	if r := byKey["leader ops_per_sec"]; r.A != 200 || r.B != 75 || r.Ratio != 2.5 {
		t.Errorf("leader ops/s %+v: want medians 200 and 75, ratio median of 2 and 3 = 2.5", r)
	}
	if r := byKey["follower p50_us"]; r.A != 2000 || r.B != 8000 || r.Ratio != 0.25 {
		t.Errorf("follower p50 %+v: want 2000µs, 8000µs, 0.25", r)
	}
	b, err := json.Marshal(rows[0])
	if err != nil || !strings.Contains(string(b), `"role":"leader","metric":"ops_per_sec"`) {
		t.Errorf("JSON %s, %v: want role and the summary row's fields side by side", b, err)
	}
}

func TestServerModesAndChanges(t *testing.T) {
	asked := map[string]int{}
	modes := map[string]string{"h:1": "follower", "h:2": "leader"}
	mode := func(a string) (string, error) {
		asked[a]++
		if m, ok := modes[a]; ok {
			return m, nil
		}
		return "", errors.New("connection refused")
	}
	before := serverModes([]string{"h:1", "h:2", "h:1", "h:3", "h:2"}, mode)
	if before["h:1"] != "follower" || before["h:2"] != "leader" || before["h:3"] != "not serving" || len(before) != 3 {
		t.Errorf("modes %v", before)
	}
	if asked["h:1"] != 1 || asked["h:2"] != 1 {
		t.Errorf("asked %v: want each server asked once", asked)
	}
	if got := modeChanges(before, mode); got != "" {
		t.Errorf("no change: %q", got)
	}
	modes["h:1"], modes["h:2"] = "leader", "follower"
	if got := modeChanges(before, mode); got != "h:1 follower→leader, h:2 leader→follower" {
		t.Errorf("after an election: %q", got)
	}
}

func TestOrderedHosts(t *testing.T) {
	h := &orderedHosts{servers: []string{"a:1", "b:2", "c:3"}, first: 4}
	if err := h.Init([]string{"c:3", "a:1", "b:2"}); err != nil { // zk.Connect's shuffled copy
		t.Fatal(err)
	}
	var got []string
	var retries []bool
	for range 4 {
		s, retry := h.Next()
		got, retries = append(got, s), append(retries, retry)
	}
	if strings.Join(got, " ") != "b:2 c:3 a:1 b:2" {
		t.Errorf("servers tried %v: want b (4 mod 3) first, then in order", got)
	}
	if retries[0] || retries[1] || retries[2] || !retries[3] {
		t.Errorf("retryStart %v: want true only once every server was tried", retries)
	}
	h.Connected()
	if s, retry := h.Next(); s != "c:3" || retry {
		t.Errorf("after a connection: %s %v, want c:3 and no retry", s, retry)
	}
	if err := (&orderedHosts{}).Init([]string{"a:1"}); err == nil {
		t.Error("Init with no servers of its own: want an error")
	}
}

// TestRoleReportText checks the per-role rows of a round and the per-role
// summary of the text report, and the JSON fields.
func TestRoleReportText(t *testing.T) {
	o := testOptions(t, "set")
	targets := []*target{{label: "A", name: "x"}, {label: "B", name: "y"}}
	var out bytes.Buffer
	rep := newReporter(&out, o, targets)
	for round := 1; round <= 2; round++ {
		for _, label := range []string{"A", "B"} {
			rep.add(&result{Round: round, Target: label, OpsPerSec: 100, P50: latency(time.Millisecond),
				ModeChanges: map[bool]string{true: "h:1 leader→follower"}[round == 2 && label == "B"],
				ByRole: []roleResult{
					{Role: "leader", Servers: 1, Sessions: 1, OpsPerSec: 40, P50: latency(time.Millisecond)},
					{Role: "follower", Servers: 2, Sessions: 3, OpsPerSec: 60, P50: latency(2 * time.Millisecond)},
				}})
		}
	}
	if err := rep.finish(); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"  leader             40 ", "(1 server, 1 session)", "(2 servers, 3 sessions)",
		"mode changed during the round: h:1 leader→follower",
		"by server role", "follower p50", "leader ops/s",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	o.json = true
	out.Reset()
	rep.o = o
	if err := rep.finish(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Config      jsonConfig       `json:"config"`
		Rounds      []*result        `json:"rounds"`
		RoleSummary []roleSummaryRow `json:"role_summary"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rounds) != 4 || len(doc.Rounds[0].ByRole) != 2 || doc.Rounds[0].ByRole[1].Sessions != 3 ||
		len(doc.RoleSummary) != 6 || doc.Config.Role != "any" {
		t.Errorf("JSON: %s", out.String())
	}
}

// TestRolesInAnEnsemble runs against an in-process three-node zkraft
// ensemble: sessions go to the servers in turn, and every session is
// counted under its server's role.
func TestRolesInAnEnsemble(t *testing.T) {
	o := testOptions(t, "set")
	tg := startTestTarget(t, "zkraft3", o)
	o.sessions = 3
	res, err := runBench(context.Background(), o, tg.addrs)
	if err != nil {
		t.Fatal(err)
	}
	sessions, servers := 0, 0
	var ops uint64
	for _, r := range res.ByRole {
		if r.Role != "leader" && r.Role != "follower" {
			t.Errorf("role %q", r.Role)
		}
		sessions, servers, ops = sessions+r.Sessions, servers+r.Servers, ops+r.Ops
	}
	if len(res.ByRole) != 2 || sessions != 3 || servers != 3 || ops != res.Ops || res.ModeChanges != "" {
		t.Errorf("by role %+v (mode changes %q): want a leader and followers, 3 sessions on 3 servers, all %d ops", res.ByRole, res.ModeChanges, res.Ops)
	}
	o.role = "follower"
	addrs, err := roleAddrs(tg.addrs, o.role)
	if err != nil {
		t.Fatal(err)
	}
	if res, err = runBench(context.Background(), o, addrs); err != nil {
		t.Fatal(err)
	}
	if len(res.ByRole) != 1 || res.ByRole[0].Role != "follower" || res.ByRole[0].Servers != 2 {
		t.Errorf("-role follower: by role %+v, want the two followers only", res.ByRole)
	}
}
