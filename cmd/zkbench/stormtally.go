package main

import (
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// stormTally is what one session of -op storm saw: its connection states
// and watch events, fed by go-zookeeper's event callback (it must not
// block). Times are from the failure (arm); events before it only count
// when they are watch events, which nothing should cause then.
type stormTally struct {
	path string // the node the session's data watch is on

	mu           sync.Mutex
	armed        bool
	changing     bool // the watched node is being changed
	t0           time.Time
	connected    bool          // the state is HasSession
	disconnects  int           // HasSession lost after the failure
	lostBefore   int           // HasSession lost before it
	backAt       time.Duration // the last HasSession after a loss, since t0
	expired      int           // StateExpired events after the failure
	fired        int           // EventNodeDataChanged on path
	unexpected   int           // any other watch event
	firstUnknown string        // the first unexpected event, for the report
	changedAt    time.Duration // the first fired, since t0
}

func newStormTally(path string) *stormTally { return &stormTally{path: path} }

// arm starts the timing at t0, the moment of the failure.
func (t *stormTally) arm(t0 time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.armed, t.t0 = true, t0
}

// expectChanges says the watched node is about to be changed: only from
// now on does its data watch count as fired.
func (t *stormTally) expectChanges() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.changing = true
}

// event is the go-zookeeper event callback.
func (t *stormTally) event(ev zk.Event) { t.eventAt(ev, time.Now()) }

func (t *stormTally) eventAt(ev zk.Event, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ev.Type == zk.EventSession {
		wasConnected := t.connected
		t.connected = ev.State == zk.StateHasSession
		// An event from before the failure that reaches the tally after
		// arm (forwarded late by a worker process) is still before it.
		if !t.armed || now.Before(t.t0) {
			if wasConnected && !t.connected {
				t.lostBefore++
			}
			return
		}
		switch {
		case ev.State == zk.StateExpired:
			t.expired++
		case wasConnected && !t.connected:
			t.disconnects++
		case !wasConnected && t.connected && t.disconnects > 0:
			t.backAt = now.Sub(t.t0)
		}
		return
	}
	if ev.Type == zk.EventNodeDataChanged && ev.Path == t.path && t.changing {
		if t.fired == 0 {
			t.changedAt = now.Sub(t.t0)
		}
		t.fired++
		return
	}
	if t.unexpected == 0 {
		t.firstUnknown = ev.Type.String() + " " + ev.Path
	}
	t.unexpected++
}

// stormState is a copy of a tally's counts.
type stormState struct {
	armed, connected bool
	disconnects      int
	backAt           time.Duration
	expired          int
	fired            int
	unexpected       int
	firstUnknown     string
}

// lossesBefore is how often the session lost its connection before the
// failure.
func (t *stormTally) lossesBefore() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lostBefore
}

func (t *stormTally) state() stormState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return stormState{t.armed, t.connected, t.disconnects, t.backAt, t.expired, t.fired, t.unexpected, t.firstUnknown}
}

// stormCounts sums the tallies of all sessions.
type stormCounts struct {
	Sessions     int           `json:"sessions"`
	Disconnected int           `json:"disconnected"` // sessions that lost their connection
	NotBack      int           `json:"not_back"`     // sessions without a session now
	Expired      int           `json:"expired"`      // sessions that saw StateExpired
	LastBack     time.Duration `json:"-"`            // the latest reconnection, since the failure
	Fired        int           `json:"watches_fired"`
	Missing      int           `json:"watches_missing"`    // watches that did not fire
	Duplicated   int           `json:"watches_duplicated"` // watches that fired more than once
	Unexpected   int           `json:"unexpected_events"`  // watch events on no watched change
	FirstOdd     string        `json:"first_unexpected,omitempty"`
}

// countStorm sums states; changed says whether the watched nodes have
// been changed (a watch that has not fired is then missing).
func countStorm(states []stormState, changed bool) stormCounts {
	c := stormCounts{Sessions: len(states)}
	for _, s := range states {
		if s.disconnects > 0 {
			c.Disconnected++
		}
		if !s.connected {
			c.NotBack++
		}
		if s.expired > 0 {
			c.Expired++
		}
		c.LastBack = max(c.LastBack, s.backAt)
		switch {
		case s.fired == 1:
			c.Fired++
		case s.fired > 1:
			c.Fired++
			c.Duplicated++
		case changed:
			c.Missing++
		}
		if s.unexpected > 0 && c.FirstOdd == "" {
			c.FirstOdd = s.firstUnknown
		}
		c.Unexpected += s.unexpected
	}
	return c
}

// missingEphemerals returns how many of want are not among children.
func missingEphemerals(children, want []string) int {
	have := make(map[string]bool, len(children))
	for _, c := range children {
		have[c] = true
	}
	n := 0
	for _, w := range want {
		if !have[w] {
			n++
		}
	}
	return n
}
