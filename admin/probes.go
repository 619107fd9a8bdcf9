package admin

import (
	"context"
	"net/http"
	"time"
)

// readyWait bounds how long /ready waits for the leader's answer when a
// server first checks that it caught up in a new term (Kubernetes'
// default probe timeout is 1 s).
const readyWait = 800 * time.Millisecond

// ready answers a readiness probe: 200 when the server can serve clients
// with current state (it knows a leader and has caught up with it), 503
// with the reason otherwise.
func (h *handler) ready(w http.ResponseWriter, r *http.Request) {
	if !h.allow(w, r, http.MethodGet) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyWait)
	defer cancel()
	err := h.view.Ready(ctx)
	o := Object{{"ready", err == nil}, {"mode", h.view.Mode()}, {"last_zxid", h.view.LastZxid()}}
	status := http.StatusOK
	if err != nil {
		status = http.StatusServiceUnavailable
		o = append(o, Field{"reason", err.Error()})
	} else {
		o = append(o, Field{"reason", nil})
	}
	writeJSON(w, status, o)
}

// live answers a liveness probe: 200 as long as the process serves HTTP,
// whatever the quorum's state (restarting a server does not bring a lost
// quorum back).
func (h *handler) live(w http.ResponseWriter, r *http.Request) {
	if h.allow(w, r, http.MethodGet) {
		writeJSON(w, http.StatusOK, Object{{"live", true}, {"mode", h.view.Mode()}})
	}
}
