package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

func sessionEv(s zk.State) zk.Event { return zk.Event{Type: zk.EventSession, State: s} }

// TestStormTallyReconnect: a loss and a reconnection after the failure
// time the session's return; events before the failure do not count.
func TestStormTallyReconnect(t *testing.T) {
	tl := newStormTally("/storm/w-1")
	t0 := time.Unix(100, 0)
	tl.eventAt(sessionEv(zk.StateConnecting), t0.Add(-time.Second))
	tl.eventAt(sessionEv(zk.StateConnected), t0.Add(-time.Second))
	tl.eventAt(sessionEv(zk.StateHasSession), t0.Add(-time.Second))
	tl.eventAt(sessionEv(zk.StateDisconnected), t0.Add(-time.Second))
	tl.eventAt(sessionEv(zk.StateHasSession), t0.Add(-time.Second))
	tl.arm(t0)
	if st := tl.state(); !st.connected || st.disconnects != 0 || st.backAt != 0 || tl.lossesBefore() != 1 {
		t.Fatalf("before the failure: %+v, %d losses", st, tl.lossesBefore())
	}
	tl.eventAt(sessionEv(zk.StateDisconnected), t0.Add(10*time.Millisecond))
	tl.eventAt(sessionEv(zk.StateConnecting), t0.Add(20*time.Millisecond))
	if st := tl.state(); st.connected || st.disconnects != 1 {
		t.Fatalf("after the loss: %+v", st)
	}
	tl.eventAt(sessionEv(zk.StateConnected), t0.Add(700*time.Millisecond))
	tl.eventAt(sessionEv(zk.StateHasSession), t0.Add(800*time.Millisecond))
	st := tl.state()
	if !st.connected || st.disconnects != 1 || st.backAt != 800*time.Millisecond || st.expired != 0 {
		t.Fatalf("after the reconnection: %+v", st)
	}
}

// TestStormTallyExpired: StateExpired counts, and a new session after it
// is still a return (the id check catches the new session).
func TestStormTallyExpired(t *testing.T) {
	tl := newStormTally("/storm/w-2")
	t0 := time.Unix(100, 0)
	tl.eventAt(sessionEv(zk.StateHasSession), t0)
	tl.arm(t0)
	tl.eventAt(sessionEv(zk.StateDisconnected), t0.Add(time.Second))
	tl.eventAt(sessionEv(zk.StateExpired), t0.Add(2*time.Second))
	tl.eventAt(zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: "/storm/w-2"}, t0.Add(2*time.Second))
	tl.eventAt(sessionEv(zk.StateHasSession), t0.Add(3*time.Second))
	st := tl.state()
	if st.expired != 1 || st.unexpected != 1 || !strings.Contains(st.firstUnknown, "/storm/w-2") || st.backAt != 3*time.Second {
		t.Fatalf("%+v", st)
	}
	c := countStorm([]stormState{st}, true)
	if c.Expired != 1 || c.Missing != 1 || c.Unexpected != 1 || c.Disconnected != 1 || c.NotBack != 0 {
		t.Fatalf("%+v", c)
	}
}

// TestStormTallyWatches: a data change on the watched path counts only
// once the changes are expected; a second one is a duplicate, an event on
// another path is unexpected.
func TestStormTallyWatches(t *testing.T) {
	changed := zk.Event{Type: zk.EventNodeDataChanged, Path: "/storm/w-3"}
	t0 := time.Unix(100, 0)
	early := newStormTally("/storm/w-3")
	early.arm(t0)
	early.eventAt(changed, t0.Add(time.Second)) // before any change was made
	once := newStormTally("/storm/w-3")
	once.arm(t0)
	once.expectChanges()
	once.eventAt(changed, t0.Add(time.Second))
	twice := newStormTally("/storm/w-3")
	twice.arm(t0)
	twice.expectChanges()
	twice.eventAt(changed, t0.Add(time.Second))
	twice.eventAt(changed, t0.Add(2*time.Second))
	other := newStormTally("/storm/w-3")
	other.arm(t0)
	other.expectChanges()
	other.eventAt(zk.Event{Type: zk.EventNodeDataChanged, Path: "/storm/w-4"}, t0.Add(time.Second))
	none := newStormTally("/storm/w-3")
	none.arm(t0)
	none.expectChanges()

	var states []stormState
	for _, tl := range []*stormTally{early, once, twice, other, none} {
		states = append(states, tl.state())
	}
	c := countStorm(states, true)
	want := stormCounts{Sessions: 5, NotBack: 5, Fired: 2, Missing: 3, Duplicated: 1, Unexpected: 2,
		FirstOdd: "EventNodeDataChanged /storm/w-3"}
	if c != want {
		t.Fatalf("counts %+v, want %+v", c, want)
	}
	if before := countStorm(states, false); before.Missing != 0 {
		t.Errorf("before the changes %d watches counted missing, want 0", before.Missing)
	}
}

func TestStormMissingEphemerals(t *testing.T) {
	children := []string{"e-0", "w-0", "e-2", "w-1", "w-2"}
	if n := missingEphemerals(children, []string{"e-0", "e-1", "e-2"}); n != 1 {
		t.Errorf("missing %d, want 1", n)
	}
}

func TestStormFailedAndVerdict(t *testing.T) {
	r := &stormResult{}
	if f := r.failed(); f != "" {
		t.Errorf("clean result failed: %s", f)
	}
	r.EphemeralsMissing, r.SecondElections = 2, 1
	if f := r.failed(); f != "2 ephemerals missing, 1 second elections" {
		t.Errorf("failed() = %q", f)
	}
	a, b := stormSummary{LastBackMs: 400}, stormSummary{LastBackMs: 1000}
	if ratio, met := stormVerdict(a, b); ratio != 0.4 || !met {
		t.Errorf("verdict %v %v, want 0.4 met", ratio, met)
	}
	a.Failed = 1
	if _, met := stormVerdict(a, b); met {
		t.Error("a failed round met the goal")
	}
	if m := medianOf([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Errorf("median %v, want 2.5", m)
	}
}

func TestStormParseFlags(t *testing.T) {
	var stderr bytes.Buffer
	o, err := parseFlags([]string{"-op", "storm-stop", "-n", "50", "-servers", "zkserver3"}, &stderr)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if o.op != opStormStop || o.n != 50 || o.rounds != 1 {
		t.Errorf("op %v n %d rounds %d", o.op, o.n, o.rounds)
	}
}

// TestStormZkserver3 runs a small storm (a leader kill) on zkserver3.
func TestStormZkserver3(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a zkserver ensemble")
	}
	bin := buildZkserver(t)
	var stderr bytes.Buffer
	o, err := parseFlags([]string{"-op", "storm", "-n", "50", "-servers", "zkserver3", "-zkserver", bin, "-session-timeout", "10s"}, &stderr)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := execute(ctx, o, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "FAILED") || !strings.Contains(out.String(), "kill") {
		t.Errorf("storm output:\n%s", out.String())
	}
	t.Log(out.String())
}
