package console

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/zkraft/zkraft/server"
)

// Paths of the tree browser's write API: POST only, a JSON body, and the
// AdminServer's write credentials (see Console.authorized).
const (
	// CreatePath creates a persistent node: {"path", "data", "sequential"}.
	CreatePath = Prefix + "api/create"
	// SetPath sets a node's data: {"path", "data", "version"}.
	SetPath = Prefix + "api/set"
	// DeletePath deletes a node: {"path", "version"}.
	DeletePath = Prefix + "api/delete"
)

// maxWriteBody bounds a write request's body (ZooKeeper's default
// jute.maxbuffer is 1 MiB; JSON escaping can double it).
const maxWriteBody = 2 << 20

// writeTimeoutOp bounds how long a write waits for its commit.
const writeTimeoutOp = 10 * time.Second

// ErrBadRequest is answered for a write body that is not the JSON asked
// for.
var ErrBadRequest = errors.New("console: bad request")

// writeBody is a write request. Version is required for set and delete
// (-1 means any version, as in ZooKeeper).
type writeBody struct {
	Path       string `json:"path"`
	Data       string `json:"data"`
	Version    *int32 `json:"version"`
	Sequential bool   `json:"sequential"`
}

// isWrite says whether path is one of the write routes.
func isWrite(path string) bool {
	return path == CreatePath || path == SetPath || path == DeletePath
}

// write serves the write routes: authorization first, then the body, then
// the write, proposed through consensus like a client's.
func (c *Console) write(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "writes are POST requests", http.StatusMethodNotAllowed)
		return
	}
	if !c.authorized(w, r) {
		return
	}
	var b writeBody
	if err := decodeWrite(w, r, &b); err != nil {
		writeError(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), writeTimeoutOp)
	defer cancel()
	cred := credentials(r)
	switch r.URL.Path {
	case CreatePath:
		path, stat, err := c.view.AdminCreate(ctx, cred, b.Path, []byte(b.Data), b.Sequential)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusCreated, map[string]any{"path": path, "stat": statOf(stat)})
	case SetPath:
		stat, err := c.view.AdminSetData(ctx, cred, b.Path, []byte(b.Data), *b.Version)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"path": b.Path, "stat": statOf(stat)})
	case DeletePath:
		if err := c.view.AdminDelete(ctx, cred, b.Path, *b.Version); err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"path": b.Path, "deleted": true})
	}
}

// decodeWrite reads a write's JSON body into b; set and delete need a
// version.
func decodeWrite(w http.ResponseWriter, r *http.Request, b *writeBody) error {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("%w: Content-Type must be application/json", ErrBadRequest)
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxWriteBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(b); err != nil {
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if r.URL.Path != CreatePath && b.Version == nil {
		return fmt.Errorf("%w: \"version\" is required (-1 for any version)", ErrBadRequest)
	}
	return nil
}

// credentials are what r authenticates with.
func credentials(r *http.Request) server.AdminCredentials {
	var certs []*x509.Certificate
	if r.TLS != nil {
		certs = r.TLS.PeerCertificates
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return server.AdminCredentials{Authorization: r.Header.Get("Authorization"), PeerCerts: certs, RemoteIP: host}
}
