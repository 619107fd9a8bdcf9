package admin

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
)

// TestConsoleFallback: with Options.Console set, the commands and probes
// stay where they are and every other path goes to the console.
func TestConsoleFallback(t *testing.T) {
	console := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "console "+r.URL.Path) })
	root := startAdmin(t, integration.StartServer(t).Server, Options{Console: console})
	for path, want := range map[string]string{"/": "console /", "/console/app.js": "console /console/app.js", "/other": "console /other"} {
		status, _, body := fetch(t, http.MethodGet, root+path, nil)
		require.Equal(t, http.StatusOK, status, path)
		require.Equal(t, want, string(body), path)
	}
	status, _, body := fetch(t, http.MethodGet, root+"/commands/ruok", nil)
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, string(body), `"command" : "ruok"`)
	for _, p := range []string{ReadyPath, LivePath} {
		status, _, body = fetch(t, http.MethodGet, root+p, nil)
		require.Equal(t, http.StatusOK, status, p)
		require.NotContains(t, string(body), "console", p)
	}
	status, _, _ = fetch(t, http.MethodGet, startAdmin(t, integration.StartServer(t).Server, Options{})+"/", nil)
	require.Equal(t, http.StatusNotFound, status, "no console: 404 as before")
}
