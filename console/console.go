package console

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// View is what the console reads of a server: read-only views of
// *server.Server. Tests may substitute their own.
type View interface {
	// WatchEnsemble says the ensemble view is watched (the servers then
	// gather each other's figures for a few seconds).
	WatchEnsemble()
	// Ensemble lists the members with their latest figures.
	Ensemble() []server.EnsembleMember
	// Health judges the members Ensemble listed: the current leader and
	// whether a quorum is heard from.
	Health(members []server.EnsembleMember) server.EnsembleHealth
	// Timeline returns the events recorded after sequence number after.
	Timeline(after uint64) []server.TimelineEvent
	// PeerTimelines returns the other members' newest events, by id, as
	// gathered with their figures.
	PeerTimelines() map[int64][]server.TimelineEvent
	TreeView
}

// TreeView is what the tree browser and the sessions table read and write.
type TreeView interface {
	// ReaderIDs authenticates a reader of znodes: its identities for the
	// ACL checks, or why it may not read at all (server.ErrAdmin*).
	ReaderIDs(cred server.AdminCredentials) ([]wire.Id, error)
	// AuthorizeWrite authenticates a writer: verified credentials only.
	AuthorizeWrite(cred server.AdminCredentials) ([]wire.Id, error)
	// Znode returns a node, its data and child list cut at the limits.
	// The node's ACL decides what the caller's credentials may see.
	Znode(cred server.AdminCredentials, path string, maxData, maxChildren int) (server.ZnodeView, error)
	// SearchPaths returns at most limit paths starting with prefix, below
	// the nodes cred may read.
	SearchPaths(cred server.AdminCredentials, prefix string, limit int) (paths []string, more bool, err error)
	// SessionTable lists the sessions with their ephemerals and watches.
	// The ReaderIDs of cred decide which paths it shows.
	SessionTable(cred server.AdminCredentials) ([]server.SessionRow, error)
	// AdminCreate, AdminSetData and AdminDelete write as a client would,
	// for a caller AuthorizeAdmin accepts.
	AdminCreate(ctx context.Context, cred server.AdminCredentials, path string, data []byte, sequential bool) (string, wire.Stat, error)
	AdminSetData(ctx context.Context, cred server.AdminCredentials, path string, data []byte, version int32) (wire.Stat, error)
	AdminDelete(ctx context.Context, cred server.AdminCredentials, path string, version int32) error
}

var _ View = (*server.Server)(nil)

// Paths the console serves (besides "/", the page).
const (
	// Prefix holds the assets and the API.
	Prefix = "/console/"
	// SnapshotPath answers the ensemble and the whole timeline as JSON.
	SnapshotPath = Prefix + "api/ensemble"
	// EventsPath is the server-sent event stream of updates.
	EventsPath = Prefix + "api/events"
)

// Options configure a Console.
type Options struct {
	// Interval is how often open streams get fresh figures (default 1 s).
	Interval time.Duration
	// Logger receives the console's lines (default: discarded).
	Logger *slog.Logger
	// Lab, set only by the lab command, adds the lab's routes and
	// controls (lab.go); nil, as on every normal server, leaves them out.
	Lab Lab
}

// DefaultInterval is Options.Interval's default.
const DefaultInterval = time.Second

// Console is the web console's HTTP handler.
type Console struct {
	view   View
	opts   Options
	assets http.Handler
	hub    *hub
}

//go:embed assets
var embedded embed.FS

// New returns the console for v.
func New(v View, opts Options) *Console {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	sub, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err) // the embedded directory is part of the build
	}
	c := &Console{view: v, opts: opts, assets: http.StripPrefix(Prefix, http.FileServerFS(sub))}
	c.hub = newHub(c)
	return c
}

// ServeHTTP serves the page at "/", its assets under Prefix, the JSON
// snapshot, the event stream and the tree browser's API; 404 elsewhere.
// Every route but the tree browser's writes is read-only (GET and HEAD).
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isLab(r.URL.Path) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		c.lab(w, r)
		return
	}
	if isWrite(r.URL.Path) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		c.write(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "this route is read-only", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	switch p := r.URL.Path; {
	case p == "/" || p == "/index.html":
		c.page(w, r)
	case p == SnapshotPath:
		c.snapshot(w, r)
	case p == EventsPath:
		c.stream(w, r)
	case p == ZnodePath:
		c.znode(w, r)
	case p == ChildrenPath:
		c.children(w, r)
	case p == SearchPath:
		c.search(w, r)
	case p == SessionsPath:
		c.sessions(w, r)
	case p == ReplicationPath:
		c.replication(w, r)
	case strings.HasPrefix(p, Prefix) && !strings.HasPrefix(p, Prefix+"api/"):
		c.assets.ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// page serves index.html.
func (c *Console) page(w http.ResponseWriter, r *http.Request) {
	b, err := embedded.ReadFile("assets/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(b)
}

// settleWait bounds how long /console/api/ensemble?settled waits for the
// other members' figures; settlePoll is how often it looks.
const (
	settleWait = 5 * time.Second
	settlePoll = 100 * time.Millisecond
)

// snapshot serves the ensemble and the whole timeline as JSON. With
// ?settled it first waits, up to settleWait, until no member is still
// loading: the static page (/?static) asks so, since a headless
// browser's virtual time runs its own timers at once while this request
// is pending in real time.
func (c *Console) snapshot(w http.ResponseWriter, r *http.Request) {
	c.view.WatchEnsemble()
	st := c.state(0)
	if r.URL.Query().Has("settled") {
		deadline := time.Now().Add(settleWait)
		for stillLoading(st.Members) && time.Now().Before(deadline) {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(settlePoll):
			}
			c.view.WatchEnsemble()
			st = c.state(0)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(mustJSON(st))
}

// stillLoading reports whether a member's figures are still on their way.
func stillLoading(members []server.EnsembleMember) bool {
	for _, m := range members {
		if m.Loading {
			return true
		}
	}
	return false
}

// CloseStreams ends every open event stream (the AdminServer calls it
// when it shuts down). New streams may open afterwards.
func (c *Console) CloseStreams() { c.hub.closeAll() }

// ErrForbidden wraps why authorized refused a request.
var ErrForbidden = errors.New("console: not authorized")

// authorized is the gate for routes that change data or the ensemble
// (the tree browser's writes and the lab's actions): it answers 401 or 403 and
// returns false unless r carries verified credentials
// (server.Server.AuthorizeWrite; each write's ACL is checked after).
func (c *Console) authorized(w http.ResponseWriter, r *http.Request) bool {
	cred := credentials(r)
	if _, err := c.view.AuthorizeWrite(cred); err != nil {
		status := http.StatusForbidden
		if cred.Authorization == "" && len(cred.PeerCerts) == 0 || isUnauthenticated(err) {
			status = http.StatusUnauthorized
		}
		http.Error(w, errors.Join(ErrForbidden, err).Error(), status)
		return false
	}
	return true
}

// authenticated reports whether r carries verified credentials, which
// reserve a stream slot and may turn the replication recording on.
func (c *Console) authenticated(r *http.Request) bool {
	_, err := c.view.AuthorizeWrite(credentials(r))
	return err == nil
}

// isUnauthenticated reports the errors answered 401.
func isUnauthenticated(err error) bool {
	return errors.Is(err, server.ErrAdminAuthMissing) || errors.Is(err, server.ErrAdminNotAuthenticated) ||
		errors.Is(err, server.ErrAdminAuthRequired)
}
