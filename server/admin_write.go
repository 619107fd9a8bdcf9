package server

import (
	"context"
	"crypto/x509"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// This file is the write path of the web console's tree browser: plain
// create, setData and delete proposed through consensus like a client's
// (on a follower they travel to the leader), by a caller AuthorizeWrite
// accepts, with the caller's verified identities checked against each
// node's ACL as a client connection's would be.

// AdminCredentials are what an HTTP request authenticates with, as
// AuthorizeAdmin takes them.
type AdminCredentials struct {
	// Authorization is the header's value, e.g. "digest root:secret".
	Authorization string
	// PeerCerts are the client certificates the TLS handshake verified.
	PeerCerts []*x509.Certificate
	// RemoteIP is the client's address, for the ip scheme.
	RemoteIP string
}

// AdminCreate creates a persistent node (sequential when sequential is
// set) with an open ACL and returns its path and Stat. The write carries
// the caller's identities, so the parent's ACL is checked as for a client
// with them. Errors are AuthorizeWrite's, ErrBadPath, or the ZooKeeper
// code (a wire.Code: NODEEXISTS, NONODE, NOAUTH, ...).
func (s *Server) AdminCreate(ctx context.Context, cred AdminCredentials, path string, data []byte, sequential bool) (string, wire.Stat, error) {
	flags := wire.FlagPersistent
	if sequential {
		flags = wire.FlagPersistentSequential
	}
	req := &wire.CreateRequest{Path: path, Data: data, ACL: wire.OpenACLUnsafe, Flags: flags}
	res, err := s.adminPropose(ctx, cred, path, wire.OpCreate2, req)
	return res.Path, res.Stat, err
}

// AdminSetData sets a node's data if its version is version (-1: any) and
// returns its new Stat; BADVERSION otherwise.
func (s *Server) AdminSetData(ctx context.Context, cred AdminCredentials, path string, data []byte, version int32) (wire.Stat, error) {
	res, err := s.adminPropose(ctx, cred, path, wire.OpSetData, &wire.SetDataRequest{Path: path, Data: data, Version: version})
	return res.Stat, err
}

// AdminDelete deletes a node without children if its version is version
// (-1: any).
func (s *Server) AdminDelete(ctx context.Context, cred AdminCredentials, path string, version int32) error {
	_, err := s.adminPropose(ctx, cred, path, wire.OpDelete, &wire.DeleteRequest{Path: path, Version: version})
	return err
}

// adminPropose authorizes cred, then proposes the write as a
// session-less transaction and waits until it is applied here. The
// outcome goes to the audit log, refusals included.
func (s *Server) adminPropose(ctx context.Context, cred AdminCredentials, path string, op wire.Op, body wire.Record) (datatree.Result, error) {
	if err := validPath(path); err != nil {
		s.auditAdminWrite(cred, body, nil, auditFailure)
		return datatree.Result{}, err
	}
	ids, err := s.AuthorizeWrite(cred)
	if err != nil {
		s.auditAdminWrite(cred, body, nil, auditFailure)
		return datatree.Result{}, err
	}
	txn := &datatree.Txn{Time: s.nowMillis(), Auth: ids, Op: op, Body: body}
	a, err := s.node.Propose(ctx, &consensus.Command{Kind: consensus.KindTxn, Txn: txn})
	s.auditAdminWrite(cred, body, a, auditOutcome(a, err))
	if err != nil {
		return datatree.Result{}, err
	}
	return a.Result, a.Result.Err
}
