package console

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeLab records the lab actions it is asked for.
type fakeLab struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeLab) record(s string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
	return nil
}

func (f *fakeLab) Kill(int64) error                                   { return f.record("kill") }
func (f *fakeLab) Restart(int64) error                                { return f.record("restart") }
func (f *fakeLab) Isolate(int64) error                                { return f.record("partition") }
func (f *fakeLab) Heal()                                              { f.record("heal") }
func (f *fakeLab) SetLink(int64, int64, time.Duration, float64) error { return f.record("link") }
func (f *fakeLab) StartLoad(int) error                                { return f.record("load") }
func (f *fakeLab) StopLoad()                                          { f.record("stop") }
func (f *fakeLab) LabStatus() LabStatus                               { return LabStatus{} }

// labRequest serves one request to h and returns its status.
func labRequest(h http.Handler, method, path, auth, body string) int {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

// TestNoLabRoutesWithoutLab: a console without Options.Lab (every normal
// server) answers 404 on every lab route, even with credentials, and the
// page's lab script then leaves the section hidden.
func TestNoLabRoutesWithoutLab(t *testing.T) {
	c := New(newFakeView(), Options{})
	require.Equal(t, http.StatusNotFound, labRequest(c, http.MethodGet, LabPath, "", ""))
	for _, p := range []string{LabKillPath, LabRestartPath, LabIsolatePath, LabHealPath, LabLinkPath, LabLoadPath} {
		require.Equal(t, http.StatusNotFound, labRequest(c, http.MethodPost, p, "digest root:secret", `{"id":1}`), p)
	}
}

// TestLabRoutesNeedAuthorization: with a lab, the actions are POST only
// and go through Console.authorized; the status is readable by anyone.
func TestLabRoutesNeedAuthorization(t *testing.T) {
	lab := &fakeLab{}
	c := New(newFakeView(), Options{Lab: lab})
	require.Equal(t, http.StatusOK, labRequest(c, http.MethodGet, LabPath, "", ""))
	require.Equal(t, http.StatusMethodNotAllowed, labRequest(c, http.MethodGet, LabKillPath, "", ""))
	require.Equal(t, http.StatusUnauthorized, labRequest(c, http.MethodPost, LabKillPath, "", `{"id":1}`))
	require.Equal(t, http.StatusForbidden, labRequest(c, http.MethodPost, LabKillPath, "digest root:wrong", `{"id":1}`))
	require.Empty(t, lab.calls, "refused requests reach the lab")
	auth := "digest root:secret"
	require.Equal(t, http.StatusBadRequest, labRequest(c, http.MethodPost, LabKillPath, auth, `{"nope":1}`))
	require.Equal(t, http.StatusNotFound, labRequest(c, http.MethodPost, LabPath+"/explode", auth, `{}`))
	for _, p := range []string{LabKillPath, LabRestartPath, LabIsolatePath, LabHealPath, LabLinkPath} {
		require.Equal(t, http.StatusOK, labRequest(c, http.MethodPost, p, auth, `{"id":1}`), p)
	}
	require.Equal(t, http.StatusOK, labRequest(c, http.MethodPost, LabLoadPath, auth, `{"clients":2}`))
	require.Equal(t, http.StatusOK, labRequest(c, http.MethodPost, LabLoadPath, auth, `{"clients":0}`))
	require.Equal(t, []string{"kill", "restart", "partition", "heal", "link", "load", "stop"}, lab.calls)
}
