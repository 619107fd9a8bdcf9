package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/zkraft/zkraft/server"
)

// Lab is what the lab's controls act on: an ensemble run by the lab
// command (package lab, cmd/zklab) in the same process as this console. A
// console without one (every normal server) has no lab routes at all.
// Servers are named by their ids.
type Lab interface {
	// Kill crashes a server (its links die at once, its clients lose
	// their connections); Restart starts it again from its data.
	Kill(id int64) error
	Restart(id int64) error
	// Isolate partitions a server away from all the others; Heal
	// restores every link Isolate cut.
	Isolate(id int64) error
	Heal()
	// SetLink slows the link between two servers (zero clears it).
	SetLink(a, b int64, delay time.Duration, loss float64) error
	// StartLoad starts clients go-zookeeper clients writing; StopLoad
	// stops them.
	StartLoad(clients int) error
	StopLoad()
	// LabStatus describes the servers, links and load.
	LabStatus() LabStatus
}

// LabScenarioActions are the further actions the guided scenarios
// (scenarios.js) use. A Lab that has them gets their routes; package lab's
// does.
type LabScenarioActions interface {
	// Write makes count client writes through server id's client port
	// (a follower forwards them to the leader) and describes them.
	Write(id int64, count int) (LabWrite, error)
	// Snapshot makes server id take a snapshot now, compacting its log
	// behind it.
	Snapshot(id int64) error
	// Remove takes server id out of the ensemble (reconfig -remove) and
	// Add takes it back with its old line (reconfig -add), each through
	// the leader.
	Remove(id int64) error
	Add(id int64) error
}

// LabStatus is the lab's state as /console/api/lab answers it.
type LabStatus struct {
	Servers []LabServer `json:"servers"`
	Links   []LabLink   `json:"links"`
	Load    LabLoad     `json:"load"`
	// Members are the ids in the Raft membership as the leader (or, with
	// none, the first running server) knows it.
	Members []int64 `json:"members,omitempty"`
	// TrailingLogs is how many log entries a server keeps behind its
	// latest snapshot for lagging followers: one further behind gets the
	// snapshot (InstallSnapshot, ZAB's SNAP).
	TrailingLogs uint64 `json:"trailingLogs,omitempty"`
	// LastWrite describes the last Write action.
	LastWrite *LabWrite `json:"lastWrite,omitempty"`
}

// LabServer is one server of the lab.
type LabServer struct {
	ID         int64  `json:"id"`
	Running    bool   `json:"running"`
	Isolated   bool   `json:"isolated"`
	ClientAddr string `json:"clientAddr"`
	ConsoleURL string `json:"consoleUrl"`
	// Status is the server's own figures, read in the lab's process (so
	// they are there even when a partition hides the server from the
	// others); nil while it is killed.
	Status *server.NodeStatus `json:"status,omitempty"`
	// SnapshotZxid is the last zxid of the last snapshot the server took
	// or installed (0: none).
	SnapshotZxid int64 `json:"snapshotZxid,omitempty"`
}

// LabWrite describes a Write action: how many of its writes succeeded,
// the zxid of the last (in hex as well, as ZooKeeper prints it), how long
// they took, and the first error.
type LabWrite struct {
	Server   int64  `json:"server"`
	Count    int    `json:"count"`
	Written  int    `json:"written"`
	Failed   int    `json:"failed"`
	LastZxid int64  `json:"lastZxid"`
	ZxidHex  string `json:"zxidHex"`
	Ms       int64  `json:"ms"`
	Error    string `json:"error,omitempty"`
}

// LabLink is a slowed link.
type LabLink struct {
	A       int64   `json:"a"`
	B       int64   `json:"b"`
	DelayMs int64   `json:"delayMs"`
	Loss    float64 `json:"loss"`
}

// LabLoad is the client write load.
type LabLoad struct {
	Clients int    `json:"clients"`
	Writes  uint64 `json:"writes"`
	Errors  uint64 `json:"errors"`
}

// Lab routes: LabPath answers the LabStatus (GET); the others are POST
// with a JSON body, behind Console.authorized, and answer the LabStatus
// after the action.
const (
	LabPath        = Prefix + "api/lab"
	LabKillPath    = LabPath + "/kill"      // {"id"}
	LabRestartPath = LabPath + "/restart"   // {"id"}
	LabIsolatePath = LabPath + "/partition" // {"id"}
	LabHealPath    = LabPath + "/heal"      // {}
	LabLinkPath    = LabPath + "/link"      // {"a", "b", "delayMs", "loss"}
	LabLoadPath    = LabPath + "/load"      // {"clients"}: 0 stops the load
	// The scenarios' actions (LabScenarioActions).
	LabWritePath    = LabPath + "/write"    // {"id", "count"}
	LabSnapshotPath = LabPath + "/snapshot" // {"id"}
	LabRemovePath   = LabPath + "/remove"   // {"id"}
	LabAddPath      = LabPath + "/add"      // {"id"}
)

// labTimeout bounds one lab action (a restart waits for the server to
// start).
const labTimeout = 30 * time.Second

// labBody is the body of every lab action; each reads its own fields.
type labBody struct {
	ID      int64   `json:"id"`
	A       int64   `json:"a"`
	B       int64   `json:"b"`
	DelayMs int64   `json:"delayMs"`
	Loss    float64 `json:"loss"`
	Clients int     `json:"clients"`
	Count   int     `json:"count"`
}

// isLab says whether path is under the lab's routes.
func isLab(path string) bool { return path == LabPath || strings.HasPrefix(path, LabPath+"/") }

// lab serves the lab's routes, or 404 when this console has no lab.
func (c *Console) lab(w http.ResponseWriter, r *http.Request) {
	if c.opts.Lab == nil {
		http.NotFound(w, r)
		return
	}
	if r.URL.Path == LabPath {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "this route is read-only", http.StatusMethodNotAllowed)
			return
		}
		writeJSON(w, http.StatusOK, c.opts.Lab.LabStatus())
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "lab actions are POST requests", http.StatusMethodNotAllowed)
		return
	}
	if !c.authorized(w, r) {
		return
	}
	var b labBody
	if err := decodeLab(w, r, &b); err != nil {
		writeError(w, err)
		return
	}
	if err := c.labAction(r.URL.Path, b); err != nil {
		status := http.StatusConflict
		if errors.Is(err, ErrBadRequest) {
			status = http.StatusBadRequest
		} else if errors.Is(err, errNoLabRoute) {
			status = http.StatusNotFound
		}
		writeJSON(w, status, errorJSON{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, c.opts.Lab.LabStatus())
}

// errNoLabRoute is an unknown path under LabPath.
var errNoLabRoute = errors.New("console: no such lab action")

// labAction runs the action path names. The action runs to its end even
// if the browser goes away (a half-done restart helps nobody), bounded by
// labTimeout.
func (c *Console) labAction(path string, b labBody) error {
	l := c.opts.Lab
	done := make(chan error, 1)
	go func() {
		switch path {
		case LabKillPath:
			done <- l.Kill(b.ID)
		case LabRestartPath:
			done <- l.Restart(b.ID)
		case LabIsolatePath:
			done <- l.Isolate(b.ID)
		case LabHealPath:
			l.Heal()
			done <- nil
		case LabLinkPath:
			done <- l.SetLink(b.A, b.B, time.Duration(b.DelayMs)*time.Millisecond, b.Loss)
		case LabLoadPath:
			if b.Clients <= 0 {
				l.StopLoad()
				done <- nil
				return
			}
			done <- l.StartLoad(b.Clients)
		default:
			done <- c.scenarioAction(path, b)
		}
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(labTimeout):
		return fmt.Errorf("console: lab action %s still running after %v", path, labTimeout)
	}
}

// scenarioAction runs one of the LabScenarioActions, if the lab has them.
func (c *Console) scenarioAction(path string, b labBody) error {
	sa, ok := c.opts.Lab.(LabScenarioActions)
	if !ok {
		return fmt.Errorf("%w: %s", errNoLabRoute, path)
	}
	switch path {
	case LabWritePath:
		_, err := sa.Write(b.ID, b.Count)
		return err
	case LabSnapshotPath:
		return sa.Snapshot(b.ID)
	case LabRemovePath:
		return sa.Remove(b.ID)
	case LabAddPath:
		return sa.Add(b.ID)
	}
	return fmt.Errorf("%w: %s", errNoLabRoute, path)
}

// decodeLab reads a lab action's JSON body (an empty body is {}).
func decodeLab(w http.ResponseWriter, r *http.Request, b *labBody) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("%w: Content-Type must be application/json", ErrBadRequest)
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(b); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return nil
}
