package admin

import (
	"fmt"
	"html"
	"net/http"
	"strings"
)

// Paths of the probes, outside the command root.
const (
	ReadyPath = "/ready"
	LivePath  = "/live"
)

// handler routes the AdminServer's requests.
type handler struct {
	view    View
	opts    Options
	backups *backupCommands
}

// NewHandler returns the AdminServer's HTTP handler for v: the commands
// under opts.CommandURL, the probes at ReadyPath and LivePath, opts.Console
// (or 404) elsewhere. It is what Start serves; tests may serve it themselves.
func NewHandler(v View, opts Options) http.Handler { return newHandler(v, opts.withDefaults()) }

// newHandler is NewHandler for opts that have their defaults already.
func newHandler(v View, opts Options) *handler {
	return &handler{view: v, opts: opts, backups: newBackupCommands(v, opts)}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case p == ReadyPath:
		h.ready(w, r)
	case p == LivePath:
		h.live(w, r)
	case p == h.opts.CommandURL || p == h.opts.CommandURL+"/":
		if h.allow(w, r, http.MethodGet) {
			h.links(w)
		}
	case strings.HasPrefix(p, h.opts.CommandURL+"/"):
		h.command(w, r, strings.TrimPrefix(p, h.opts.CommandURL+"/"))
	case h.opts.Console != nil:
		h.opts.Console.ServeHTTP(w, r)
	default:
		jettyError(w, r, http.StatusNotFound, "Not Found")
	}
}

// command runs one command. GET (and HEAD) only, as ZooKeeper 3.8's
// servlet, except restore, which takes its snapshot as a POST body.
func (h *handler) command(w http.ResponseWriter, r *http.Request, name string) {
	method := http.MethodGet
	if isRestore(name) {
		method = http.MethodPost
	}
	if !h.allow(w, r, method) {
		return
	}
	switch {
	case isSnapshot(name):
		h.backups.snapshot(w, r, name)
		return
	case isRestore(name):
		h.backups.restore(w, r, name)
		return
	}
	if !h.pathsAllowed(w, r, name) {
		return
	}
	args := map[string]string{}
	for k, vs := range r.URL.Query() {
		args[k] = vs[0]
	}
	writeJSON(w, http.StatusOK, runCommand(name, &request{view: h.view, args: args, opts: &h.opts}))
}

// allow answers 405, as Jetty's servlet does, unless r uses method (GET
// also allows HEAD).
func (h *handler) allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method || (method == http.MethodGet && r.Method == http.MethodHead) {
		return true
	}
	w.Header().Set("Allow", method)
	jettyError(w, r, http.StatusMethodNotAllowed, "HTTP method "+r.Method+" is not supported by this URL")
	return false
}

// links lists every command as ZooKeeper's servlet does for GET /commands.
func (h *handler) links(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html;charset=utf-8")
	var b strings.Builder
	for _, name := range primaryNames() {
		fmt.Fprintf(&b, "<a href=\"%s/%s\">%s</a>\n<br/>\n", h.opts.CommandURL, name, name)
	}
	fmt.Fprint(w, b.String())
}

// writeJSON writes o as the AdminServer's pretty JSON.
func writeJSON(w http.ResponseWriter, status int, o Object) {
	body := MarshalPretty(o)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// jettyError writes an error page shaped as Jetty's.
func jettyError(w http.ResponseWriter, r *http.Request, status int, message string) {
	w.Header().Set("Content-Type", "text/html;charset=iso-8859-1")
	w.Header().Set("Cache-Control", "must-revalidate,no-cache,no-store")
	w.WriteHeader(status)
	msg := html.EscapeString(message)
	fmt.Fprintf(w, "<html>\n<head>\n<title>Error %d %s</title>\n</head>\n<body><h2>HTTP ERROR %d %s</h2>\n"+
		"<table>\n<tr><th>URI:</th><td>%s</td></tr>\n<tr><th>STATUS:</th><td>%d</td></tr>\n"+
		"<tr><th>MESSAGE:</th><td>%s</td></tr>\n</table>\n</body>\n</html>\n",
		status, msg, status, msg, html.EscapeString(r.URL.Path), status, msg)
}
