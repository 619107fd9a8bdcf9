package main

import (
	"encoding/json"
	"time"

	"github.com/go-zookeeper/zk"
)

// The storm's sessions live in worker processes (stormworker.go), since
// one process may hold no more than its open-files limit of sockets (a
// hard 20,000 here). The parent (stormpool.go) talks to each worker over
// its stdin and stdout, one JSON object a line.
//
// Parent to worker: first a stormWorkerConfig, then commands
// ({"cmd":"report"} or {"cmd":"close"}). Worker to parent: stormWire
// lines. Every event go-zookeeper hands a session's callback is sent
// as it happens ("ev", with the worker's wall-clock time of the event),
// so the parent feeds its own stormTally per session exactly as if the
// session lived in the parent; the parent alone decides what counts.

const stormWorkerEnv = "ZKBENCH_STORM_WORKER" // set to 1: this process is a storm worker

// stormWorkerConfig says which sessions a worker opens and how.
type stormWorkerConfig struct {
	Addrs     []string `json:"addrs"`
	TimeoutNs int64    `json:"timeout_ns"` // the session timeout
	First     int      `json:"first"`      // the worker's sessions are First .. First+Count-1
	Count     int      `json:"count"`
	Parallel  int      `json:"parallel"` // sessions opened at once
	TLS       struct {
		CA, Cert, Key string
	} `json:"tls"`
}

// stormCommand is a command from the parent.
type stormCommand struct {
	Cmd string `json:"cmd"` // report: every session's id and server; close: close them and exit
}

// Kinds of stormWire lines.
const (
	wireEvent    = "ev"       // an event of session I
	wireOpened   = "opened"   // every session is open (or Err)
	wireSession  = "sess"     // report: session I's id and server
	wireReported = "reported" // the report is complete
	wireClosed   = "closed"   // every session is closed; the worker exits
)

// stormWire is one line from a worker.
type stormWire struct {
	T      string `json:"t"`
	I      int    `json:"i,omitempty"`
	Ns     int64  `json:"ns,omitempty"` // ev: the event's time, Unix nanoseconds
	Type   int32  `json:"ty,omitempty"` // ev: zk.EventType
	State  int32  `json:"st,omitempty"` // ev: zk.State
	Path   string `json:"p,omitempty"`
	Sid    int64  `json:"sid,omitempty"`
	Server string `json:"srv,omitempty"`
	Err    string `json:"err,omitempty"`
}

func eventWire(i int, ev zk.Event, now time.Time) stormWire {
	return stormWire{T: wireEvent, I: i, Ns: now.UnixNano(), Type: int32(ev.Type), State: int32(ev.State), Path: ev.Path}
}

// event returns the zk.Event and time of an ev line.
func (w *stormWire) event() (zk.Event, time.Time) {
	return zk.Event{Type: zk.EventType(w.Type), State: zk.State(w.State), Path: w.Path}, time.Unix(0, w.Ns)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain structs are marshalled
	}
	return append(b, '\n')
}
