package admin

import (
	"bufio"
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/server"
)

// bigSource serves a large snapshot and counts what the AdminServer asks
// of it; restores read their whole body.
type bigSource struct {
	opened, closed, restored atomic.Int64
	size                     int
}

type bigBackup struct{ s *bigSource }

func (b bigBackup) WriteTo(w io.Writer) (int64, error) {
	chunk := make([]byte, 64<<10)
	var n int64
	for n < int64(b.s.size) {
		k, err := w.Write(chunk[:min(len(chunk), b.s.size-int(n))])
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (b bigBackup) Close() error { b.s.closed.Add(1); return nil }

func (s *bigSource) OpenBackup(context.Context) (Backup, int64, int64, error) {
	s.opened.Add(1)
	return bigBackup{s}, 1, int64(s.size), nil
}

func (s *bigSource) RestoreBackup(_ context.Context, r io.Reader) (int64, error) {
	if _, err := io.Copy(io.Discard, r); err != nil {
		return 0, err
	}
	s.restored.Add(1)
	return 2, nil
}

func (s *bigSource) AuthorizeAdmin(auth string, _ []*x509.Certificate, _ string) error {
	if auth == "digest root:secret" {
		return nil
	}
	return ErrNotAuthenticated
}

func limitedAdmin(t *testing.T, l server.AdminLimits) (string, *bigSource) {
	t.Helper()
	s := integration.StartServer(t)
	src := &bigSource{size: 64 << 20}
	return startAdmin(t, s.Server, Options{Backups: src, Limits: l, RateLimit: server.NoAdminRateLimit}), src
}

// TestHeaderSizeIs431: headers above admin.requestHeaderSize are answered
// 431, as Jetty answers, and the server goes on serving.
func TestHeaderSizeIs431(t *testing.T) {
	base, _ := limitedAdmin(t, server.AdminLimits{})
	c := dialIdle(t, base)
	fmt.Fprintf(c, "GET /commands/ruok HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 10<<10))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)
	status, _, _ := fetch(t, http.MethodGet, base+"/commands/ruok", nil, "X-Small", strings.Repeat("a", 2<<10))
	require.Equal(t, http.StatusOK, status)
	for _, n := range []int{9 << 10, 10 << 10, 11 << 10} {
		status, _, _ = fetch(t, http.MethodGet, base+"/commands/ruok", nil, "X-Big", strings.Repeat("a", n))
		require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, status, "%d bytes of headers on a reused connection", n)
	}
}

// dialIdle opens a connection that sends nothing.
func dialIdle(t *testing.T, base string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer reports whether the server closed c (EOF) rather than
// keeping it open; it waits up to d.
func closedByServer(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := c.Read(make([]byte, 1))
	return err == io.EOF
}

// TestConnectionsPerAddressAreBounded: connections from one address above
// admin.maxConnectionsPerIP are closed at once; a freed slot is reused.
func TestConnectionsPerAddressAreBounded(t *testing.T) {
	base, _ := limitedAdmin(t, server.AdminLimits{MaxConnectionsPerIP: 4})
	var held []net.Conn
	for range 4 {
		held = append(held, dialIdle(t, base))
	}
	extra := dialIdle(t, base)
	require.True(t, closedByServer(extra, 10*time.Second), "the fifth connection from one address is closed")
	held[0].Close()
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			return false
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /commands/ruok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond, "a freed slot serves again")
}

// TestSlowRestoreBodyIsCut: a restore body that trickles in is cut once
// admin.readTimeout has passed without the minimum rate, and a restore
// sent properly meanwhile is served.
func TestSlowRestoreBodyIsCut(t *testing.T) {
	base, src := limitedAdmin(t, server.AdminLimits{ReadTimeout: 300 * time.Millisecond})
	c := dialIdle(t, base)
	fmt.Fprintf(c, "POST /commands/restore HTTP/1.1\r\nHost: x\r\nAuthorization: digest root:secret\r\nContent-Length: 1000000\r\n\r\nZ")
	require.True(t, closedOrAnswered(c, 20*time.Second), "the trickling restore is cut")
	status, _, body := fetch(t, http.MethodPost, base+"/commands/restore", strings.NewReader("SNAP-full"), "Authorization", "digest root:secret")
	require.Equal(t, http.StatusOK, status, string(body))
	require.EqualValues(t, 1, src.restored.Load())

	// Refused before its body is read (wrong credentials here), a
	// trickling request is still cut: net/http reads what is left of a
	// small body before it answers.
	c = dialIdle(t, base)
	fmt.Fprintf(c, "POST /commands/restore HTTP/1.1\r\nHost: x\r\nAuthorization: digest eve:x\r\nContent-Length: 1000\r\n\r\nZ")
	require.True(t, closedOrAnswered(c, 20*time.Second), "a refused trickling restore is cut")
}

// closedOrAnswered reports whether the server ended the request on c
// within d: an answer, or the connection closed.
func closedOrAnswered(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := c.Read(make([]byte, 1))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

// TestStalledSnapshotDownloadIsCut: a caller that stops reading a
// snapshot is cut after admin.writeTimeout and the snapshot is released.
func TestStalledSnapshotDownloadIsCut(t *testing.T) {
	base, src := limitedAdmin(t, server.AdminLimits{WriteTimeout: 300 * time.Millisecond})
	c := dialIdle(t, base)
	fmt.Fprintf(c, "GET /commands/snapshot HTTP/1.1\r\nHost: x\r\nAuthorization: digest root:secret\r\n\r\n")
	require.Eventually(t, func() bool { return src.closed.Load() == 1 }, 20*time.Second, 20*time.Millisecond,
		"the never-read download was not cut")
}

// TestHeadSnapshotBuildsNothing: HEAD of a snapshot checks the caller but
// builds no backup and uses no rate-limit slot.
func TestHeadSnapshotBuildsNothing(t *testing.T) {
	s := integration.StartServer(t)
	src := &bigSource{size: 1 << 10}
	base := startAdmin(t, s.Server, Options{Backups: src, RateLimit: time.Hour})
	for range 3 {
		status, _, _ := fetch(t, http.MethodHead, base+"/commands/snapshot", nil, "Authorization", "digest root:secret")
		require.Equal(t, http.StatusOK, status)
	}
	status, _, _ := fetch(t, http.MethodHead, base+"/commands/snapshot", nil)
	require.Equal(t, http.StatusUnauthorized, status)
	require.Zero(t, src.opened.Load(), "HEAD built a backup")
	status, _, body := fetch(t, http.MethodGet, base+"/commands/snapshot", nil, "Authorization", "digest root:secret")
	require.Equal(t, http.StatusOK, status, "HEAD used up the rate limit")
	require.Len(t, body, 1<<10)
}
