package admin

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
)

// fakeBackup is a backup of the server's API shape: LastZxid and Size are
// fields, as in package server.
type fakeBackup struct {
	LastZxid, Size int64
	data           []byte
	closed         *bool
}

func (b *fakeBackup) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b.data)
	return int64(n), err
}

func (b *fakeBackup) Close() error { *b.closed = true; return nil }

// Errors of the fake source, as the real one's translated errors.
var (
	errFakeMissing   = fmt.Errorf("fake: %w", ErrAuthMissing)
	errFakeBadCreds  = fmt.Errorf("fake: %w", ErrNotAuthenticated)
	errFakeForbidden = fmt.Errorf("fake: %w", ErrNotAuthorized)
)

// fakeSource implements Backups: "digest root:secret"
// is allowed, "digest bob:pw" is a valid user without ALL on /, "digest
// broken:x" fails the check, anything else is a wrong credential.
type fakeSource struct {
	mu       sync.Mutex
	snapshot []byte
	restored []byte
	closed   bool
	ip       string
}

func (f *fakeSource) OpenBackup(ctx context.Context) (Backup, int64, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := &fakeBackup{LastZxid: 0x200000007, Size: int64(len(f.snapshot)), data: f.snapshot, closed: &f.closed}
	return b, b.LastZxid, b.Size, nil
}

func (f *fakeSource) RestoreBackup(ctx context.Context, r io.Reader) (int64, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	if !bytes.HasPrefix(b, []byte("SNAP")) {
		return 0, errors.New("not a snapshot")
	}
	f.mu.Lock()
	f.restored = b
	f.mu.Unlock()
	return 0x300000001, nil
}

func (f *fakeSource) AuthorizeAdmin(auth string, _ []*x509.Certificate, ip string) error {
	f.mu.Lock()
	f.ip = ip
	f.mu.Unlock()
	switch auth {
	case "":
		return errFakeMissing
	case "digest root:secret":
		return nil
	case "digest bob:pw":
		return fmt.Errorf("checking /: %w", errFakeForbidden)
	case "digest broken:x":
		return errors.New("the tree is gone")
	}
	return errFakeBadCreds
}

func fakeBackups(f *fakeSource) Backups { return f }

// backupServer starts a standalone server whose AdminServer serves
// snapshot and restore from a fake.
func backupServer(t *testing.T, opts Options) (string, *fakeSource) {
	t.Helper()
	s := integration.StartServer(t)
	f := &fakeSource{snapshot: []byte("SNAP-0123456789")}
	opts.Backups = fakeBackups(f)
	return startAdmin(t, s.Server, opts) + "/commands/", f
}

const rootAuth = "digest root:secret"

func TestSnapshotStreamsWithHeaders(t *testing.T) {
	base, f := backupServer(t, Options{})
	status, hdr, body := fetch(t, http.MethodGet, base+"snapshot", nil, "Authorization", rootAuth)
	require.Equal(t, http.StatusOK, status, "%s", body)
	require.Equal(t, "application/octet-stream", hdr.Get("Content-Type"))
	require.Equal(t, "0x200000007", hdr.Get("last_zxid"))
	require.Equal(t, "15", hdr.Get("snapshot_size"))
	require.Equal(t, "15", hdr.Get("Content-Length"))
	require.Equal(t, "SNAP-0123456789", string(body))
	require.True(t, f.closed, "the backup is closed after streaming")
	require.Equal(t, "127.0.0.1", f.ip, "the peer's address is checked")

	f.closed = false
	status, hdr, body = fetch(t, http.MethodGet, base+"snap?streaming=false", nil, "Authorization", rootAuth)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "application/json", hdr.Get("Content-Type"))
	require.Equal(t, "0x200000007", hdr.Get("last_zxid"))
	require.Equal(t, "{\n  \"command\" : \"snapshot\",\n  \"error\" : null\n}", string(body))
	require.True(t, f.closed)
}

func TestRestoreTakesThePostBody(t *testing.T) {
	base, f := backupServer(t, Options{})
	status, _, body := fetch(t, http.MethodPost, base+"restore", strings.NewReader("SNAP-restored"), "Authorization", rootAuth)
	require.Equal(t, http.StatusOK, status, "%s", body)
	require.Equal(t, "{\n  \"last_zxid\" : 12884901889,\n  \"command\" : \"restore\",\n  \"error\" : null\n}", string(body))
	require.Equal(t, "SNAP-restored", string(f.restored))

	status, _, body = fetch(t, http.MethodPost, base+"rest", strings.NewReader("garbage"), "Authorization", rootAuth)
	require.Equal(t, http.StatusInternalServerError, status)
	require.Contains(t, string(body), "not a snapshot")
	status, _, _ = fetch(t, http.MethodPost, base+"rest", http.NoBody, "Authorization", rootAuth)
	require.Equal(t, http.StatusBadRequest, status)
	status, _, _ = fetch(t, http.MethodGet, base+"rest", nil, "Authorization", rootAuth)
	require.Equal(t, http.StatusMethodNotAllowed, status)
	status, _, _ = fetch(t, http.MethodPost, base+"snapshot", nil, "Authorization", rootAuth)
	require.Equal(t, http.StatusMethodNotAllowed, status)
}

// TestBackupAuthStatuses maps the authentication outcomes to ZooKeeper
// 3.9's status codes and messages, for both commands.
func TestBackupAuthStatuses(t *testing.T) {
	base, _ := backupServer(t, Options{})
	tests := []struct {
		auth   string
		status int
		error  string
	}{
		{"", http.StatusUnauthorized, "Auth info is missing for the command"},
		{"digest root:wrong", http.StatusUnauthorized, "Not authenticated"},
		{"digest bob:pw", http.StatusForbidden, "Not authorized"},
		{"digest broken:x", http.StatusInternalServerError, "Error occurred during auth"},
	}
	for _, tc := range tests {
		for _, cmd := range []string{"snapshot", "restore"} {
			method := http.MethodGet
			if cmd == "restore" {
				method = http.MethodPost
			}
			var hdr []string
			if tc.auth != "" {
				hdr = []string{"Authorization", tc.auth}
			}
			status, _, body := fetch(t, method, base+cmd, strings.NewReader("SNAP"), hdr...)
			require.Equal(t, tc.status, status, "%s %q", cmd, tc.auth)
			o, err := decodeOrdered(body)
			require.NoError(t, err)
			require.Equal(t, Object{{"command", cmd}, {"error", tc.error}}, o, "%s %q", cmd, tc.auth)
		}
	}
}

func TestBackupDisabledAndRateLimited(t *testing.T) {
	base, _ := backupServer(t, Options{SnapshotDisabled: true, RateLimit: time.Hour})
	status, _, _ := fetch(t, http.MethodGet, base+"snapshot", nil, "Authorization", rootAuth)
	require.Equal(t, http.StatusServiceUnavailable, status)
	status, _, _ = fetch(t, http.MethodGet, base+"snapshot", nil)
	require.Equal(t, http.StatusUnauthorized, status, "authentication comes first, as in ZooKeeper 3.9")

	status, _, _ = fetch(t, http.MethodPost, base+"restore", strings.NewReader("SNAP-1"), "Authorization", rootAuth)
	require.Equal(t, http.StatusOK, status)
	status, _, body := fetch(t, http.MethodPost, base+"restore", strings.NewReader("SNAP-2"), "Authorization", rootAuth)
	require.Equal(t, http.StatusTooManyRequests, status, "%s", body)

	noBackups := startAdmin(t, integration.StartServer(t).Server, Options{}) + "/commands/"
	status, _, _ = fetch(t, http.MethodGet, noBackups+"snapshot", nil, "Authorization", rootAuth)
	require.Equal(t, http.StatusServiceUnavailable, status)
}

func TestRateLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newRateLimiter(time.Minute)
	l.now = func() time.Time { return now }
	require.True(t, l.allow(), "the first call goes through")
	require.False(t, l.allow())
	now = now.Add(59 * time.Second)
	require.False(t, l.allow())
	now = now.Add(time.Second)
	require.True(t, l.allow())
	require.False(t, l.allow())
	unlimited := newRateLimiter(0)
	require.True(t, unlimited.allow())
	require.True(t, unlimited.allow())
}
