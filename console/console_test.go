package console

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
)

// serve serves a console over v on 127.0.0.1 until the test ends.
func serve(t *testing.T, v View, interval time.Duration) (*Console, string) {
	t.Helper()
	c := New(v, Options{Interval: interval})
	ts := httptest.NewServer(c)
	t.Cleanup(func() {
		c.CloseStreams()
		ts.Close()
	})
	return c, ts.URL
}

// TestPageAndAssets checks the page and its embedded assets, and that
// every other path and method is refused.
func TestPageAndAssets(t *testing.T) {
	_, base := serve(t, newFakeView(), time.Second)
	status, ctype, body := get(t, base+"/")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "text/html; charset=utf-8", ctype)
	require.Contains(t, string(body), `<script src="/console/app.js">`)
	status, ctype, body = get(t, base+"/console/app.js")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, ctype, "javascript")
	require.Contains(t, string(body), "EventSource")
	status, ctype, _ = get(t, base+"/console/style.css")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, ctype, "text/css")
	for _, p := range []string{"/nothing", "/console/nothing.js", "/console/api/nothing", "/console/api/"} {
		status, _, _ = get(t, base+p)
		require.Equal(t, http.StatusNotFound, status, p)
	}
	resp, err := httpClient.Post(base+"/", "text/plain", strings.NewReader("x"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "the console is read-only")
	require.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))
}

// TestSnapshot checks the JSON the page reads first: the members with
// their figures, the answering server and the whole timeline.
func TestSnapshot(t *testing.T) {
	v := newFakeView()
	v.addEvent(server.TimelineEvent{Kind: "looking", Term: 2})
	v.addEvent(server.TimelineEvent{Kind: "leader", Term: 3, Leader: "1", Self: true})
	_, base := serve(t, v, time.Second)
	status, ctype, body := get(t, base+SnapshotPath)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "application/json", ctype)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(body, &raw))
	for _, k := range []string{"server", "time", "members", "timeline"} {
		require.Contains(t, raw, k)
	}
	var st state
	require.NoError(t, json.Unmarshal(body, &st))
	require.Equal(t, int64(1), st.Server)
	require.Len(t, st.Members, 1)
	require.Equal(t, "leader", st.Members[0].Status.Role)
	require.Equal(t, int64(3<<32|7), st.Members[0].Status.LastZxid)
	require.Len(t, st.Timeline, 2)
	require.Equal(t, "leader", string(st.Timeline[1].Kind))
	require.EqualValues(t, 1, v.watches.Load(), "the snapshot says the ensemble is watched")
}

// TestStreamDeliversUpdates opens the event stream: updates carry the
// current figures, and between them every timeline event exactly once.
func TestStreamDeliversUpdates(t *testing.T) {
	v := newFakeView()
	v.addEvent(server.TimelineEvent{Kind: "leader", Term: 3, Leader: "1", Self: true})
	_, base := serve(t, v, 20*time.Millisecond)
	ev := openEvents(t, base)
	first := ev.next(t)
	require.Equal(t, "leader", first.Members[0].Status.Role)
	seen := map[uint64]int{}
	for _, e := range first.Timeline {
		seen[e.Seq]++
	}

	v.setRole(1, "looking")
	v.addEvent(server.TimelineEvent{Kind: "looking", Term: 3})
	for st := ev.next(t); st.Members[0].Status.Role != "looking" || seen[2] == 0; st = ev.next(t) {
		for _, e := range st.Timeline {
			seen[e.Seq]++
		}
	}
	for range 3 {
		for _, e := range ev.next(t).Timeline {
			seen[e.Seq]++
		}
	}
	require.Equal(t, map[uint64]int{1: 1, 2: 1}, seen, "every event once")
}

// TestNoWorkWithoutStreams checks that the console reads nothing while no
// stream is open, and that its refresh stops with the last stream.
func TestNoWorkWithoutStreams(t *testing.T) {
	v := newFakeView()
	c, base := serve(t, v, 5*time.Millisecond)
	_, running := c.hub.streams()
	require.False(t, running)
	ev := openEvents(t, base)
	ev.next(t)
	ev.next(t)
	ev.close()
	waitFor(t, 5*time.Second, "the refresh to stop", func() bool {
		open, running := c.hub.streams()
		return open == 0 && !running
	})
	reads, watches := v.reads.Load(), v.watches.Load()
	// Forty intervals with nobody watching: not one read.
	deadline := time.Now().Add(40 * c.opts.Interval)
	for time.Now().Before(deadline) {
		runtime.Gosched()
	}
	require.Equal(t, reads, v.reads.Load())
	require.Equal(t, watches, v.watches.Load())
}

// TestLongStreamStaysBounded holds one stream open for many updates: the
// goroutines and the updates waiting for it stay bounded.
func TestLongStreamStaysBounded(t *testing.T) {
	v := newFakeView()
	c, base := serve(t, v, time.Millisecond)
	ev := openEvents(t, base)
	ev.next(t)
	before := runtime.NumGoroutine()
	for i := range 500 {
		if i%50 == 0 {
			v.addEvent(server.TimelineEvent{Kind: "snapshot", Zxid: int64(i)})
		}
		ev.next(t)
		c.hub.mu.Lock()
		for cl := range c.hub.clients {
			require.LessOrEqual(t, len(cl.updates), streamBacklog)
		}
		c.hub.mu.Unlock()
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), before+2, "goroutines after 500 updates")
	open, _ := c.hub.streams()
	require.Equal(t, 1, open)
}

// TestSlowClientIsCutOff registers a stream that never reads: once
// streamBacklog updates wait for it, the hub drops it rather than queue
// more.
func TestSlowClientIsCutOff(t *testing.T) {
	c := New(newFakeView(), Options{Interval: time.Millisecond})
	t.Cleanup(c.CloseStreams)
	cl := c.hub.join(true)
	require.NotNil(t, cl)
	select {
	case <-cl.gone:
	case <-time.After(10 * time.Second):
		t.Fatal("a client that never reads was not cut off")
	}
	require.Len(t, cl.updates, streamBacklog)
	waitFor(t, 5*time.Second, "the refresh to stop", func() bool {
		_, running := c.hub.streams()
		return !running
	})
}

// TestStreamLimit opens maxStreams streams; one more is refused with 503.
func TestStreamLimit(t *testing.T) {
	c, base := serve(t, newFakeView(), time.Hour)
	for range maxStreams {
		require.NotNil(t, c.hub.join(true))
	}
	status, _, _ := get(t, base+EventsPath)
	require.Equal(t, http.StatusServiceUnavailable, status)
}

// TestAuthorizedHook checks the gate later write routes go through: no
// credentials is 401, wrong ones 403, the AdminServer's accepted ones
// pass.
func TestAuthorizedHook(t *testing.T) {
	c := New(newFakeView(), Options{})
	check := func(auth string) int {
		r := httptest.NewRequest(http.MethodPost, "/console/api/anything", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		if c.authorized(w, r) {
			return http.StatusOK
		}
		return w.Code
	}
	require.Equal(t, http.StatusUnauthorized, check(""))
	require.Equal(t, http.StatusForbidden, check("digest root:wrong"))
	require.Equal(t, http.StatusOK, check("digest root:secret"))
}
