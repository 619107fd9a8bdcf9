package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// inProcessStormWorkers makes the pool run its workers as goroutines on
// pipes, the same protocol without a process.
func inProcessStormWorkers(t *testing.T) {
	t.Helper()
	saved := startStormWorker
	t.Cleanup(func() { startStormWorker = saved })
	startStormWorker = func() (io.WriteCloser, io.ReadCloser, func() error, error) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() {
			err := runStormWorker(context.Background(), inR, outW)
			outW.Close()
			done <- err
		}()
		return inW, outR, func() error { return <-done }, nil
	}
}

// TestStormPoolWorkers opens sessions through two in-process workers:
// every session is opened with its ephemeral, its events reach the
// parent's tally, and the report gives each its session id and server.
func TestStormPoolWorkers(t *testing.T) {
	inProcessStormWorkers(t)
	o := testOptions(t, "get")
	o.n, o.inflight, o.sessionTimeout = 7, 4, 10*time.Second
	tg := startTestTarget(t, "zkraft", o)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	checker, err := connect(ctx, tg.addrs, o.sessionTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer checker.close()
	if _, err := checker.Create(stormRoot, nil, 0, openACL); err != nil {
		t.Fatal(err)
	}
	p, err := openStormPool(ctx, o, tg.addrs)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.workers) != 2 {
		t.Errorf("%d workers for 7 sessions, want 2", len(p.workers))
	}
	if err := p.report(ctx); err != nil {
		t.Fatal(err)
	}
	ids := map[int64]bool{}
	for i, s := range p.sessions {
		if s.sid == 0 || s.server == "" || ids[s.sid] {
			t.Errorf("session %d: id %#x server %q", i, s.sid, s.server)
		}
		ids[s.sid] = true
		if st := s.tally.state(); !st.connected || st.armed {
			t.Errorf("session %d: tally %+v, want connected and not armed", i, st)
		}
	}
	children, _, err := checker.Children(stormRoot)
	if err != nil {
		t.Fatal(err)
	}
	if n := missingEphemerals(children, []string{"e-0", "e-3", "e-4", "e-6"}); n != 0 || len(children) != 14 {
		t.Errorf("children %v", children)
	}
	p.close() // returns once every worker has ended
	// The workers closed their sessions: the ephemerals go.
	deadline := time.Now().Add(10 * time.Second)
	for {
		children, _, err := checker.Children(stormRoot)
		if err != nil {
			t.Fatal(err)
		}
		if len(children) == 7 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after close: children %v, want only the 7 watched nodes", children)
		}
		time.Sleep(10 * time.Millisecond)
	}
	closeStorm(checker.Conn, o.n)
}

// TestStormPoolRead: a worker's event lines feed the right tally, at the
// worker's time; a line for another worker's session is an error.
func TestStormPoolRead(t *testing.T) {
	p := &stormPool{sessions: []*stormSession{{tally: newStormTally("/storm/w-0")}, {tally: newStormTally("/storm/w-1")}}}
	t0 := time.Unix(100, 0)
	p.sessions[1].tally.arm(t0)
	lines := string(mustJSON(eventWire(1, zk.Event{Type: zk.EventSession, State: zk.StateHasSession}, t0.Add(-time.Second)))) +
		string(mustJSON(eventWire(1, zk.Event{Type: zk.EventSession, State: zk.StateDisconnected}, t0.Add(time.Second)))) +
		string(mustJSON(eventWire(1, zk.Event{Type: zk.EventSession, State: zk.StateHasSession}, t0.Add(3*time.Second)))) +
		string(mustJSON(stormWire{T: wireSession, I: 1, Sid: 42, Server: "a:1"})) +
		string(mustJSON(stormWire{T: wireReported}))
	replies := make(chan stormWire, 4)
	if err := p.read(strings.NewReader(lines), 1, 2, replies); err != nil {
		t.Fatal(err)
	}
	if m := <-replies; m.T != wireReported {
		t.Errorf("reply %+v", m)
	}
	st := p.sessions[1].tally.state()
	if !st.connected || st.disconnects != 1 || st.backAt != 3*time.Second || p.sessions[1].tally.lossesBefore() != 0 {
		t.Errorf("tally %+v", st)
	}
	if p.sessions[1].sid != 42 || p.sessions[1].server != "a:1" || p.sessions[0].tally.state().connected {
		t.Errorf("sessions %+v %+v", p.sessions[0], p.sessions[1])
	}
	other := string(mustJSON(eventWire(0, zk.Event{Type: zk.EventSession}, t0)))
	if err := p.read(strings.NewReader(other), 1, 2, replies); err == nil {
		t.Error("an event for another worker's session was accepted")
	}
}
