package admin

import (
	"net/http"
	"slices"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// pathCommands list znode paths: the ephemerals of each session (dump)
// and the watched paths (watches, watches_by_path). ZooKeeper serves them
// to anyone, as zkraft does by default; but where the client port
// enforces authentication (enforce.auth.*, sessionRequireClientSASLAuth)
// an anonymous client can learn no path there, so these commands then
// need the identity the client port would (ReaderGate), 401 otherwise.
var pathCommands = []string{"dump", "watches", "watches_by_path"}

// ReaderGate is what a View offers to decide who may read znode paths
// (*server.Server's ReaderIDs). A View without it serves the commands to
// anyone.
type ReaderGate interface {
	ReaderIDs(cred server.AdminCredentials) ([]wire.Id, error)
}

// pathsAllowed answers 401 and returns false when name lists paths, the
// client port enforces authentication, and r's credentials do not meet
// it.
func (h *handler) pathsAllowed(w http.ResponseWriter, r *http.Request, name string) bool {
	c, ok := byName[name]
	if !ok || !slices.Contains(pathCommands, c.names[0]) || !h.view.Config().Security.EnforceAuth {
		return true
	}
	gate, ok := h.view.(ReaderGate)
	if !ok {
		return true
	}
	if _, err := gate.ReaderIDs(server.AdminCredentials{Authorization: r.Header.Get("Authorization"), PeerCerts: peerCerts(r), RemoteIP: remoteIP(r)}); err != nil {
		fail(w, c.names[0], http.StatusUnauthorized, err.Error())
		return false
	}
	return true
}

var _ ReaderGate = (*server.Server)(nil)
