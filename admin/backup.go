package admin

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// ZooKeeper 3.9's snapshot and restore commands, with their aliases.
const (
	snapshotName = "snapshot"
	restoreName  = "restore"
)

func isSnapshot(name string) bool { return name == snapshotName || name == "snap" }
func isRestore(name string) bool  { return name == restoreName || name == "rest" }

// Backup is one consistent snapshot being streamed out.
type Backup interface {
	// WriteTo writes the whole snapshot, Size bytes, to w.
	WriteTo(w io.Writer) (int64, error)
	// Close releases the snapshot.
	Close() error
}

// Backups is the server side of snapshot and restore (see ServerBackups).
type Backups interface {
	// OpenBackup takes a snapshot without stopping writes; lastZxid is
	// its last transaction's zxid and size the bytes WriteTo writes.
	OpenBackup(ctx context.Context) (b Backup, lastZxid, size int64, err error)
	// RestoreBackup replaces the replicated state with a snapshot that
	// WriteTo wrote, through Raft, and returns the last zxid after it.
	RestoreBackup(ctx context.Context, r io.Reader) (lastZxid int64, err error)
	// AuthorizeAdmin checks that a request's Authorization header (with
	// the TLS peer certificates and the remote IP) is a super identity:
	// snapshot and restore read or replace everything, ACLs included. Its
	// errors wrap ErrAuthMissing, ErrNotAuthenticated, ErrNotAuthorized or
	// ErrNoSuper.
	AuthorizeAdmin(authorization string, peerCerts []*x509.Certificate, remoteIP string) error
}

// Auditor is implemented by Backups whose server keeps an audit log
// (audit.enable): snapshot and restore report to it, once per GET or
// POST, who asked (the Authorization header, the TLS peer certificates,
// the remote IP) and whether the command was carried out: a refusal (no
// or wrong credentials, disabled, rate-limited, not serving) and a
// snapshot cut off before its end count as not. HEAD is not reported.
type Auditor interface {
	AuditCommand(command, authorization string, peerCerts []*x509.Certificate, remoteIP string, succeeded bool)
}

// Authentication outcomes of AuthorizeAdmin, worded and mapped to status
// codes as ZooKeeper 3.9's.
var (
	ErrAuthMissing      = errors.New("Auth info is missing for the command") // 401
	ErrNotAuthenticated = errors.New("Not authenticated")                    // 401
	ErrNotAuthorized    = errors.New("Not authorized")                       // 403
	// ErrNoSuper (403) says no super identity is configured; its message
	// names the key to set.
	ErrNoSuper = errors.New("snapshot and restore need a super identity")
)

// ErrNoBackups is the error of snapshot and restore on an AdminServer
// started without Backups.
var ErrNoBackups = errors.New("snapshot and restore are not available on this server")

// backupCommands serves snapshot and restore, each rate-limited on its own.
type backupCommands struct {
	view              View
	opts              Options
	snapLimit, rLimit *rateLimiter
}

func newBackupCommands(v View, opts Options) *backupCommands {
	return &backupCommands{view: v, opts: opts, snapLimit: newRateLimiter(opts.RateLimit), rLimit: newRateLimiter(opts.RateLimit)}
}

// fail answers a command with an error and a status code.
func fail(w http.ResponseWriter, name string, status int, msg string) {
	writeJSON(w, status, Object{{"command", name}, {"error", msg}})
}

// admit runs the checks snapshot and restore share, in ZooKeeper 3.9's
// order (serving, authentication, enabled, rate; no rate check when
// limit is nil, as for HEAD), answering and returning false when one
// fails.
func (b *backupCommands) admit(w http.ResponseWriter, r *http.Request, name string, disabled bool, limit *rateLimiter) bool {
	switch {
	case !b.view.Serving():
		fail(w, name, http.StatusOK, errNotServing)
	case b.opts.Backups == nil:
		fail(w, name, http.StatusServiceUnavailable, ErrNoBackups.Error())
	case !b.authorized(w, r, name):
	case disabled:
		fail(w, name, http.StatusServiceUnavailable, name+" is disabled (admin."+name+".enabled=false)")
	case limit != nil && !limit.allow():
		fail(w, name, http.StatusTooManyRequests, fmt.Sprintf("%s is rate-limited to one per %v (admin.rateLimiterIntervalInMS)", name, b.opts.RateLimit))
	default:
		return true
	}
	return false
}

// authorized checks the Authorization header, answering as ZooKeeper 3.9:
// 401 when it is missing or its credentials are wrong, 403 when they are
// not super (or no super identity is configured), 500 when the check
// fails otherwise.
func (b *backupCommands) authorized(w http.ResponseWriter, r *http.Request, name string) bool {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		fail(w, name, http.StatusUnauthorized, ErrAuthMissing.Error())
		return false
	}
	switch err := b.opts.Backups.AuthorizeAdmin(auth, peerCerts(r), remoteIP(r)); {
	case err == nil:
		return true
	case errors.Is(err, ErrAuthMissing):
		fail(w, name, http.StatusUnauthorized, ErrAuthMissing.Error())
	case errors.Is(err, ErrNotAuthenticated):
		fail(w, name, http.StatusUnauthorized, ErrNotAuthenticated.Error())
	case errors.Is(err, ErrNotAuthorized):
		fail(w, name, http.StatusForbidden, ErrNotAuthorized.Error())
	case errors.Is(err, ErrNoSuper):
		fail(w, name, http.StatusForbidden, err.Error())
	default:
		b.opts.Logger.Warn("AdminServer: auth check failed", "command", name, "err", err)
		fail(w, name, http.StatusInternalServerError, "Error occurred during auth")
	}
	return false
}

// peerCerts are the client certificates r's TLS handshake verified.
func peerCerts(r *http.Request) []*x509.Certificate {
	if r.TLS == nil {
		return nil
	}
	return r.TLS.PeerCertificates
}

// remoteIP is the peer's address, never X-Forwarded-For: a header anyone
// can set must not pass an ip ACL.
func remoteIP(r *http.Request) string {
	ip, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return ip
}

// audit reports a command's outcome to the Backups' audit log, if any.
func (b *backupCommands) audit(r *http.Request, command string, succeeded bool) {
	if a, ok := b.opts.Backups.(Auditor); ok {
		a.AuditCommand(command, r.Header.Get("Authorization"), peerCerts(r), remoteIP(r), succeeded)
	}
}

// snapshot streams a consistent snapshot (application/octet-stream) with
// headers last_zxid (0x hex) and snapshot_size; with ?streaming=false it
// sends the headers and the usual JSON only.
func (b *backupCommands) snapshot(w http.ResponseWriter, r *http.Request, name string) {
	if r.Method == http.MethodHead {
		b.head(w, r, name)
		return
	}
	if !b.admit(w, r, name, b.opts.SnapshotDisabled, b.snapLimit) {
		b.audit(r, snapshotName, false)
		return
	}
	snap, zxid, size, err := b.opts.Backups.OpenBackup(r.Context())
	if err != nil {
		b.audit(r, snapshotName, false)
		b.opts.Logger.Warn("AdminServer: snapshot failed", "err", err)
		fail(w, snapshotName, http.StatusInternalServerError, "snapshot failed: "+err.Error())
		return
	}
	defer snap.Close()
	w.Header().Set("last_zxid", "0x"+strconv.FormatInt(zxid, 16))
	w.Header().Set("snapshot_size", strconv.FormatInt(size, 10))
	// Java's Boolean.parseBoolean: only "true", in any case, is true.
	if v, ok := r.URL.Query()["streaming"]; ok && !strings.EqualFold(v[0], "true") {
		b.audit(r, snapshotName, true)
		writeJSON(w, http.StatusOK, response(snapshotName, nil))
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	w.WriteHeader(http.StatusOK)
	// A caller that stops reading is cut after WriteTimeout, and the
	// deferred Close releases the snapshot it held.
	n, err := snap.WriteTo(newDeadlineWriter(w, b.opts.Limits.WriteTimeout))
	b.audit(r, snapshotName, err == nil)
	if err != nil {
		b.opts.Logger.Warn("AdminServer: snapshot stream cut", "remote", r.RemoteAddr, "sent", n, "of", size, "err", err)
	}
}

// head answers HEAD of a snapshot: the checks a GET passes but the rate
// limit, and no backup built (it would be thrown away unsent).
func (b *backupCommands) head(w http.ResponseWriter, r *http.Request, name string) {
	if b.admit(w, r, name, b.opts.SnapshotDisabled, nil) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusOK)
	}
}

// restore loads the snapshot in the request body into the ensemble and
// answers its last zxid.
func (b *backupCommands) restore(w http.ResponseWriter, r *http.Request, name string) {
	if !b.admit(w, r, name, b.opts.RestoreDisabled, b.rLimit) {
		b.audit(r, restoreName, false)
		return
	}
	if r.ContentLength == 0 {
		b.audit(r, restoreName, false)
		fail(w, restoreName, http.StatusBadRequest, "restore needs a snapshot as the request body")
		return
	}
	zxid, err := b.opts.Backups.RestoreBackup(r.Context(), newBodyReader(w, r, b.opts.Limits.ReadTimeout))
	b.audit(r, restoreName, err == nil)
	if err != nil {
		b.opts.Logger.Warn("AdminServer: restore failed", "err", err)
		fail(w, restoreName, http.StatusInternalServerError, "restore failed: "+err.Error())
		return
	}
	b.opts.Logger.Info("AdminServer: restored a snapshot", "remote", r.RemoteAddr, "last_zxid", fmt.Sprintf("0x%x", zxid))
	writeJSON(w, http.StatusOK, response(restoreName, Object{{"last_zxid", zxid}}))
}
