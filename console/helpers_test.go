package console

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// fakeView is a View whose figures a test sets; it counts how often the
// console reads them.
type fakeView struct {
	mu       sync.Mutex
	members  []server.EnsembleMember
	events   []server.TimelineEvent
	peers    map[int64][]server.TimelineEvent // the peers' timelines
	reads    atomic.Int64                     // Ensemble calls
	watches  atomic.Int64                     // WatchEnsemble calls
	authUser string                           // the Authorization value AuthorizeWrite accepts
}

func newFakeView() *fakeView {
	v := &fakeView{authUser: "digest root:secret"}
	v.setRole(1, "leader")
	return v
}

// setRole makes the view a one-server ensemble of server id in role.
func (v *fakeView) setRole(id int64, role string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	st := &server.NodeStatus{ID: id, Role: role, LeaderID: id, Epoch: 3, LastZxid: 3<<32 | 7}
	v.members = []server.EnsembleMember{{ID: id, Self: true, Status: st}}
}

func (v *fakeView) addEvent(kind server.TimelineEvent) {
	v.mu.Lock()
	defer v.mu.Unlock()
	kind.Seq = uint64(len(v.events) + 1)
	v.events = append(v.events, kind)
}

func (v *fakeView) WatchEnsemble() { v.watches.Add(1) }

func (v *fakeView) Health([]server.EnsembleMember) server.EnsembleHealth {
	return server.EnsembleHealth{}
}

func (v *fakeView) Ensemble() []server.EnsembleMember {
	v.reads.Add(1)
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]server.EnsembleMember, len(v.members))
	copy(out, v.members)
	return out
}

func (v *fakeView) Timeline(after uint64) []server.TimelineEvent {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []server.TimelineEvent
	for _, ev := range v.events {
		if ev.Seq > after {
			out = append(out, ev)
		}
	}
	return out
}

func (v *fakeView) PeerTimelines() map[int64][]server.TimelineEvent {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(map[int64][]server.TimelineEvent, len(v.peers))
	for id, tl := range v.peers {
		out[id] = append([]server.TimelineEvent(nil), tl...)
	}
	return out
}

var errDenied = errors.New("denied")

func (v *fakeView) AuthorizeWrite(cred server.AdminCredentials) ([]wire.Id, error) {
	if cred.Authorization == v.authUser {
		return nil, nil
	}
	return nil, errDenied
}

func (v *fakeView) ReaderIDs(server.AdminCredentials) ([]wire.Id, error) { return nil, nil }

// httpClient bounds every request so that a stuck server fails the test.
var httpClient = &http.Client{Timeout: 10 * time.Second}

// get does a GET and returns the status, content type and body.
func get(t testing.TB, url string) (int, string, []byte) {
	t.Helper()
	resp, err := httpClient.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// events reads a server-sent event stream.
type events struct {
	resp *http.Response
	r    *bufio.Reader
}

// openEvents opens base's event stream.
func openEvents(t testing.TB, base string) *events {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+EventsPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{}).Do(req) // no timeout: the stream is long
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("event stream: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &events{resp: resp, r: bufio.NewReader(resp.Body)}
}

// next reads the next "state" event.
func (e *events) next(t testing.TB) state {
	t.Helper()
	var name string
	for {
		line, err := e.r.ReadString('\n')
		if err != nil {
			t.Fatalf("event stream: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && name == "state":
			var st state
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &st); err != nil {
				t.Fatalf("event %q: %v", line, err)
			}
			return st
		}
	}
}

func (e *events) close() { e.resp.Body.Close() }

// waitFor polls cond every 10 ms for up to d.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// errNoTree is what fakeView's tree methods answer: the tree browser is
// tested against a real server (tree_test.go).
var errNoTree = errors.New("fakeView has no tree")

func (v *fakeView) Znode(server.AdminCredentials, string, int, int) (server.ZnodeView, error) {
	return server.ZnodeView{}, errNoTree
}

func (v *fakeView) SearchPaths(server.AdminCredentials, string, int) ([]string, bool, error) {
	return nil, false, errNoTree
}

func (v *fakeView) SessionTable(server.AdminCredentials) ([]server.SessionRow, error) {
	return nil, nil
}

func (v *fakeView) AdminCreate(context.Context, server.AdminCredentials, string, []byte, bool) (string, wire.Stat, error) {
	return "", wire.Stat{}, errNoTree
}

func (v *fakeView) AdminSetData(context.Context, server.AdminCredentials, string, []byte, int32) (wire.Stat, error) {
	return wire.Stat{}, errNoTree
}

func (v *fakeView) AdminDelete(context.Context, server.AdminCredentials, string, int32) error {
	return errNoTree
}
