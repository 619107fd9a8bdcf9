package admin

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
)

// BackupSource is the server's snapshot and restore API as package server
// declares it, with B its backup type (*server.Backup, whose LastZxid and
// Size are fields).
type BackupSource[B Backup] interface {
	OpenBackup(ctx context.Context) (B, error)
	RestoreBackup(ctx context.Context, r io.Reader) (lastZxid int64, err error)
	AuthorizeAdmin(authorization string, peerCerts []*x509.Certificate, remoteIP string) error
}

// AuthErrors are a BackupSource's sentinel errors for the three outcomes
// of AuthorizeAdmin that are not 500s.
type AuthErrors struct {
	Missing, NotAuthenticated, NotAuthorized error
}

// BackupsOf adapts src to Backups; meta reads a backup's last zxid and
// size, and errs are src's authentication errors, translated to this
// package's. cmd/zkserver wires *server.Server with:
//
//	admin.BackupsOf(srv, func(b *server.Backup) (int64, int64) { return b.LastZxid, b.Size },
//		admin.AuthErrors{Missing: server.ErrAdminAuthMissing,
//			NotAuthenticated: server.ErrAdminNotAuthenticated, NotAuthorized: server.ErrAdminNotAuthorized})
func BackupsOf[B Backup](src BackupSource[B], meta func(B) (lastZxid, size int64), errs AuthErrors) Backups {
	return &backupAdapter[B]{src: src, meta: meta, errs: errs}
}

type backupAdapter[B Backup] struct {
	src  BackupSource[B]
	meta func(B) (int64, int64)
	errs AuthErrors
}

func (a *backupAdapter[B]) OpenBackup(ctx context.Context) (Backup, int64, int64, error) {
	b, err := a.src.OpenBackup(ctx)
	if err != nil {
		return nil, 0, 0, err
	}
	zxid, size := a.meta(b)
	return b, zxid, size, nil
}

func (a *backupAdapter[B]) RestoreBackup(ctx context.Context, r io.Reader) (int64, error) {
	return a.src.RestoreBackup(ctx, r)
}

func (a *backupAdapter[B]) AuthorizeAdmin(authorization string, peerCerts []*x509.Certificate, remoteIP string) error {
	err := a.src.AuthorizeAdmin(authorization, peerCerts, remoteIP)
	switch {
	case err == nil:
		return nil
	case is(err, a.errs.Missing):
		return ErrAuthMissing
	case is(err, a.errs.NotAuthenticated):
		return ErrNotAuthenticated
	case is(err, a.errs.NotAuthorized):
		return ErrNotAuthorized
	}
	return err
}

// is is errors.Is that a nil target never matches.
func is(err, target error) bool { return target != nil && errors.Is(err, target) }
