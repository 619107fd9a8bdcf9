package admin

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
)

// TestCommandURL serves the commands under another root, and at the root.
func TestCommandURL(t *testing.T) {
	s := integration.StartServer(t)
	for url, ruok := range map[string]string{"/cmd/": "/cmd/ruok", "adm": "/adm/ruok", "/": "/ruok"} {
		root := startAdmin(t, s.Server, Options{CommandURL: url})
		require.Equal(t, Object{{"command", "ruok"}, {"error", nil}}, getJSON(t, root+ruok), url)
		status, _, _ := fetch(t, http.MethodGet, root+"/ready", nil)
		require.Equal(t, http.StatusOK, status, url)
		if url != "/" {
			status, _, _ = fetch(t, http.MethodGet, root+"/commands/ruok", nil)
			require.Equal(t, http.StatusNotFound, status, url)
		}
	}
}
