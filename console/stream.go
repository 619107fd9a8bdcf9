package console

import (
	"bytes"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/zkraft/zkraft/server"
)

// Limits that keep a page left open, or many, from growing the server's
// memory.
const (
	// maxStreams is how many event streams may be open at once; more are
	// answered 503. reservedStreams of them are kept for callers with
	// verified credentials, so that anonymous pages cannot lock an
	// operator out of the live view.
	maxStreams      = 64
	reservedStreams = 16
	// streamBacklog is how many updates may wait for a slow client; one
	// more cuts it off (its EventSource reconnects and starts afresh).
	streamBacklog = 8
	// writeTimeout bounds one update's write to a client.
	writeTimeout = 10 * time.Second
)

// hub refreshes the figures for every open stream. Its one goroutine runs
// only while a stream is open: a server nobody watches does no work for
// the console.
type hub struct {
	c       *Console
	mu      sync.Mutex
	clients map[*client]struct{}
	running bool
	seq     uint64 // the newest timeline event sent to the streams
	// marks is the newest event of each peer sent to the streams.
	marks map[int64]uint64
}

// client is one open stream: the updates waiting for it.
type client struct {
	updates chan []byte
	gone    chan struct{} // closed when the hub drops the client
}

func newHub(c *Console) *hub {
	return &hub{c: c, clients: map[*client]struct{}{}, marks: map[int64]uint64{}}
}

// join registers a new stream, starting the refresh when it is the first;
// nil when maxStreams are open, or all but the reserved ones and the
// caller is not verified.
func (h *hub) join(verified bool) *client {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.clients) >= maxStreams || !verified && len(h.clients) >= maxStreams-reservedStreams {
		return nil
	}
	cl := &client{updates: make(chan []byte, streamBacklog), gone: make(chan struct{})}
	h.clients[cl] = struct{}{}
	if !h.running {
		h.running = true
		go h.run()
	}
	return cl
}

// leave drops cl (a no-op when the hub dropped it already).
func (h *hub) leave(cl *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropLocked(cl)
}

func (h *hub) dropLocked(cl *client) {
	if _, ok := h.clients[cl]; ok {
		delete(h.clients, cl)
		close(cl.gone)
	}
}

// closeAll drops every stream.
func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for cl := range h.clients {
		h.dropLocked(cl)
	}
}

// streams returns how many streams are open and whether the refresh runs.
func (h *hub) streams() (open int, running bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients), h.running
}

// earlyRefresh is how soon after the first stream opens the hub sends a
// refresh before its regular interval: the first update carried what this
// server held when the page loaded, often no figures of the other members
// yet, and their first gathering takes a fraction of a second.
const earlyRefresh = 300 * time.Millisecond

// run refreshes the figures every interval while a stream is open, and
// once earlyRefresh after it starts.
func (h *hub) run() {
	tick := time.NewTicker(h.c.opts.Interval)
	defer tick.Stop()
	early := time.NewTimer(min(h.c.opts.Interval, earlyRefresh))
	defer early.Stop()
	for {
		select {
		case <-tick.C:
		case <-early.C:
		}
		if !h.refresh() {
			return
		}
	}
}

// refresh sends every stream fresh figures; false when none is open (the
// hub then stops).
func (h *hub) refresh() bool {
	h.mu.Lock()
	if len(h.clients) == 0 {
		h.running = false
		h.mu.Unlock()
		return false
	}
	after := h.seq
	h.mu.Unlock()
	h.c.view.WatchEnsemble()
	st := h.c.state(after)
	peers := h.c.view.PeerTimelines()
	h.mu.Lock()
	defer h.mu.Unlock()
	st.PeerTimeline = peerEvents(peers, h.marks)
	msg := event("state", mustJSON(st))
	h.seq = lastSeq(st.Timeline, after)
	for cl := range h.clients {
		select {
		case cl.updates <- msg:
		default: // too far behind: cut off
			h.dropLocked(cl)
		}
	}
	return true
}

// stream serves one event stream: a first update with the whole timeline,
// then one every interval with the events since the previous one.
func (c *Console) stream(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	cl := c.hub.join(c.authenticated(r))
	if cl == nil {
		http.Error(w, "too many console streams open (the last ones are kept for callers with credentials)", http.StatusServiceUnavailable)
		return
	}
	defer c.hub.leave(cl)
	// The first update is read after joining: the hub's next one carries
	// only events after those it had sent, and this one has them all.
	c.view.WatchEnsemble()
	c.hub.mu.Lock()
	upTo, marks := c.hub.seq, maps.Clone(c.hub.marks)
	c.hub.mu.Unlock()
	first := c.state(0)
	first.Timeline = trimAfter(first.Timeline, upTo)
	first.PeerTimeline = sentBefore(first.PeerTimeline, marks)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if !send(rc, w, event("state", mustJSON(first))) {
		return
	}
	for {
		select {
		case msg := <-cl.updates:
			if !send(rc, w, msg) {
				return
			}
		case <-cl.gone:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// trimAfter drops the events after seq: the hub sends them.
func trimAfter(tl []server.TimelineEvent, seq uint64) []server.TimelineEvent {
	for i, ev := range tl {
		if ev.Seq > seq {
			return tl[:i]
		}
	}
	return tl
}

// send writes one update and flushes it; false when the client is gone.
func send(rc *http.ResponseController, w http.ResponseWriter, msg []byte) bool {
	rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := w.Write(msg); err != nil {
		return false
	}
	return rc.Flush() == nil
}

// event formats one server-sent event (data holds no newline: it is
// compact JSON).
func event(name string, data []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(data) + len(name) + 16)
	b.WriteString("event: ")
	b.WriteString(name)
	b.WriteString("\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	return b.Bytes()
}
