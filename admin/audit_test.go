package admin

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/testlog"
	"github.com/zkraft/zkraft/server"
)

// auditingSource is a fakeSource that keeps an audit log.
type auditingSource struct {
	*fakeSource
	calls chan string
}

func (a *auditingSource) AuditCommand(command, authorization string, _ []*x509.Certificate, remoteIP string, succeeded bool) {
	a.calls <- fmt.Sprintf("%s %s %q %v", command, remoteIP, authorization, succeeded)
}

// next returns the next audit call, failing after a while without one.
func (a *auditingSource) next(t *testing.T) string {
	t.Helper()
	select {
	case c := <-a.calls:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no audit call")
		return ""
	}
}

// TestBackupCommandsAreAudited: each snapshot and restore is reported
// once, with who asked and whether it was carried out; HEAD is not.
func TestBackupCommandsAreAudited(t *testing.T) {
	a := &auditingSource{fakeSource: &fakeSource{snapshot: []byte("SNAP-1")}, calls: make(chan string, 16)}
	base := startAdmin(t, integration.StartServer(t).Server, Options{Backups: a}) + "/commands/"

	steps := []struct {
		method, cmd, auth string
		body              string
		want              string
	}{
		{http.MethodGet, "snapshot", rootAuth, "", `snapshot 127.0.0.1 "digest root:secret" true`},
		{http.MethodGet, "snap?streaming=false", rootAuth, "", `snapshot 127.0.0.1 "digest root:secret" true`},
		{http.MethodGet, "snapshot", "digest root:wrong", "", `snapshot 127.0.0.1 "digest root:wrong" false`},
		{http.MethodGet, "snapshot", "digest bob:pw", "", `snapshot 127.0.0.1 "digest bob:pw" false`},
		{http.MethodPost, "restore", rootAuth, "SNAP-2", `restore 127.0.0.1 "digest root:secret" true`},
		{http.MethodPost, "restore", rootAuth, "garbage", `restore 127.0.0.1 "digest root:secret" false`},
		{http.MethodPost, "restore", "", "SNAP-3", `restore 127.0.0.1 "" false`},
	}
	for _, s := range steps {
		var hdr []string
		if s.auth != "" {
			hdr = []string{"Authorization", s.auth}
		}
		fetch(t, s.method, base+s.cmd, strings.NewReader(s.body), hdr...)
		require.Equal(t, s.want, a.next(t), "%s %s", s.method, s.cmd)
	}
	status, _, _ := fetch(t, http.MethodHead, base+"snapshot", nil, "Authorization", rootAuth)
	require.Equal(t, http.StatusOK, status)
	select {
	case c := <-a.calls:
		t.Fatalf("HEAD builds no backup and is not audited: %s", c)
	default:
	}
}

// TestServerBackupsWriteTheAuditLog: through ServerBackups, a snapshot is
// a line of the server's audit log, by the verified super user.
func TestServerBackupsWriteTheAuditLog(t *testing.T) {
	var log testlog.Buffer
	cfg := server.DefaultConfig()
	cfg.ClientPort = 0
	cfg.Audit.Enable = true
	cfg.SuperDigest = datatree.DigestID("super:secret")
	srv, err := server.New(cfg, server.WithAuditWriter(&log))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.Start(ctx))
	t.Cleanup(func() { srv.Close() })
	base := startAdmin(t, srv, Options{Backups: ServerBackups(srv)}) + "/commands/"

	status, _, _ := fetch(t, http.MethodGet, base+"snapshot", nil, "Authorization", "digest super:secret")
	require.Equal(t, http.StatusOK, status)
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "operation=snapshot") }, 10*time.Second, time.Millisecond)
	require.Contains(t, log.String(), "zkraft.audit: user=127.0.0.1,super\tip=127.0.0.1\toperation=snapshot\tresult=success\n")
}
