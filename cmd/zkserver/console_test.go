package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// httpGet does a GET and returns the status and body ("" and 0 when the
// server does not answer yet).
func httpGet(url string) (int, string) {
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestConsoleAtAdminRoot: the AdminServer serves the web console at "/",
// its commands where they were; an event stream left open does not hold
// up zkserver's stop.
func TestConsoleAtAdminRoot(t *testing.T) {
	adminPort := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", adminPort)
	var streamDone chan struct{}
	runWithAdmin(t, adminPort, func() {
		require.Eventually(t, func() bool { s, _ := httpGet(base + "/commands/ruok"); return s == http.StatusOK },
			10*time.Second, 20*time.Millisecond)
		status, page := httpGet(base + "/")
		require.Equal(t, http.StatusOK, status)
		require.Contains(t, page, "<title>zkraft console</title>")
		status, snap := httpGet(base + "/console/api/ensemble")
		require.Equal(t, http.StatusOK, status)
		require.Contains(t, snap, `"role":"standalone"`)
		// The lab's routes exist only in zklab (package lab): none here.
		status, _ = httpGet(base + "/console/api/lab")
		require.Equal(t, http.StatusNotFound, status, "a normal zkserver has no lab routes")
		resp, err := http.Get(base + "/console/api/events")
		require.NoError(t, err)
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "event: state\n", line)
		streamDone = make(chan struct{})
		go func() { io.Copy(io.Discard, resp.Body); resp.Body.Close(); close(streamDone) }()
	})
	select {
	case <-streamDone:
	case <-time.After(5 * time.Second):
		t.Fatal("the event stream outlived zkserver")
	}
}

// TestConsoleDisabled: admin.console.enabled=false leaves the AdminServer
// without the console.
func TestConsoleDisabled(t *testing.T) {
	adminPort := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", adminPort)
	runWithAdminCfg(t, adminPort, "admin.console.enabled=false\n", func() {
		require.Eventually(t, func() bool { s, _ := httpGet(base + "/commands/ruok"); return s == http.StatusOK },
			10*time.Second, 20*time.Millisecond)
		status, body := httpGet(base + "/")
		require.Equal(t, http.StatusNotFound, status)
		require.False(t, strings.Contains(body, "zkraft console"))
	})
}
