package admin

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"

	"github.com/zkraft/zkraft/server"
)

// ServerBackups is a server's snapshot and restore for the AdminServer.
// It translates package server's authentication sentinels to this
// package's, which the handlers map to HTTP status codes.
func ServerBackups(srv *server.Server) Backups { return serverBackups{srv} }

type serverBackups struct{ srv *server.Server }

func (s serverBackups) OpenBackup(ctx context.Context) (Backup, int64, int64, error) {
	b, err := s.srv.OpenBackup(ctx)
	if err != nil {
		return nil, 0, 0, err
	}
	return b, b.LastZxid, b.Size, nil
}

func (s serverBackups) RestoreBackup(ctx context.Context, r io.Reader) (int64, error) {
	return s.srv.RestoreBackup(ctx, r)
}

func (s serverBackups) AuthorizeAdmin(authorization string, peerCerts []*x509.Certificate, remoteIP string) error {
	err := s.srv.AuthorizeAdmin(authorization, peerCerts, remoteIP)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, server.ErrAdminAuthMissing):
		return ErrAuthMissing
	case errors.Is(err, server.ErrAdminNotAuthenticated):
		return ErrNotAuthenticated
	case errors.Is(err, server.ErrAdminNotAuthorized):
		return ErrNotAuthorized
	case errors.Is(err, server.ErrAdminNoSuper):
		return fmt.Errorf("%w: %w", ErrNoSuper, err)
	}
	return err
}

// AuditCommand writes the command's line in the server's audit log
// (server.AuditAdminCommand; nothing without audit.enable).
func (s serverBackups) AuditCommand(command, authorization string, peerCerts []*x509.Certificate, remoteIP string, succeeded bool) {
	cred := server.AdminCredentials{Authorization: authorization, PeerCerts: peerCerts, RemoteIP: remoteIP}
	s.srv.AuditAdminCommand(command, cred, succeeded)
}
