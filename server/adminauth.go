package server

import (
	"crypto/x509"
	"errors"
	"net"
	"slices"
	"strings"

	"github.com/zkraft/zkraft/auth"
	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// The errors of AuthorizeAdmin, worded (capitals included) as ZooKeeper
// 3.9's AdminServer words them; the AdminServer answers 401, 401 and 403.
var (
	ErrAdminAuthMissing      = errors.New("Auth info is missing for the command")
	ErrAdminNotAuthenticated = errors.New("Not authenticated")
	ErrAdminNotAuthorized    = errors.New("Not authorized")
)

// adminPerms are the permissions an admin command needs on "/", each one
// of them: the contract of the snapshot and restore commands is Perms.ALL.
// (ZooKeeper 3.9 passes ALL to checkACL, which is satisfied by an entry
// granting any one of its bits; zkraft asks for every bit, since a restore
// overwrites everything.)
var adminPerms = []int32{wire.PermRead, wire.PermWrite, wire.PermCreate, wire.PermDelete, wire.PermAdmin}

// AuthorizeAdmin checks an AdminServer request's Authorization header value
// ("<scheme> <authdata>", e.g. "digest root:secret"), plus the TLS peer
// certificates for x509 and the remote IP for ip, against the ACL of "/",
// needing every bit of Perms.ALL, as ZooKeeper 3.9's snapshot and restore
// commands do. The ids are those the client port's providers give: digest
// (and super for the superDigest), ip, and x509 when a client port speaks
// TLS or an authProvider names it (super for its superUser). peerCerts must
// be certificates the AdminServer's TLS handshake verified.
func (s *Server) AuthorizeAdmin(authorization string, peerCerts []*x509.Certificate, remoteIP string) error {
	if authorization == "" {
		return ErrAdminAuthMissing
	}
	if s.node == nil {
		return ErrNotStarted
	}
	ids, err := s.adminIDs(authorization, peerCerts, remoteIP)
	if err != nil {
		return err
	}
	var denied bool
	s.node.Read(func(st *consensus.State) {
		for _, perm := range adminPerms {
			if st.Tree.CheckACL("/", perm, ids) != nil {
				denied = true
				return
			}
		}
	})
	if denied {
		return ErrAdminNotAuthorized
	}
	return nil
}

// adminIDs authenticates an Authorization header: ZooKeeper splits it on
// single spaces (as Java's String.split, dropping trailing empty parts) and
// wants the scheme alone or the scheme and its data.
func (s *Server) adminIDs(authorization string, peerCerts []*x509.Certificate, remoteIP string) ([]wire.Id, error) {
	parts := strings.Split(authorization, " ")
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 2 || !slices.Contains(s.adminSchemes(), parts[0]) {
		return nil, ErrAdminNotAuthenticated
	}
	switch parts[0] {
	case "digest":
		if len(parts) != 2 {
			return nil, ErrAdminNotAuthenticated
		}
		id := wire.Id{Scheme: "digest", ID: datatree.DigestID(parts[1])}
		if sd := s.cfg.SuperDigest; sd != "" && id.ID == sd {
			return []wire.Id{{Scheme: "super", ID: ""}, id}, nil
		}
		return []wire.Id{id}, nil
	case "ip":
		if ip := hostOnly(remoteIP); ip != "" {
			return []wire.Id{{Scheme: "ip", ID: ip}}, nil
		}
	case "x509":
		return s.adminX509IDs(peerCerts)
	}
	return nil, ErrAdminNotAuthenticated
}

// adminSchemes are the schemes an Authorization header may name: the
// client port's, and x509 when the AdminServer asks HTTPS clients for a
// certificate (admin.needClientAuth).
func (s *Server) adminSchemes() []string {
	schemes := s.cfg.Security.Schemes()
	if s.cfg.AdminTLS() && s.cfg.Admin.NeedClientAuth && !slices.Contains(schemes, "x509") {
		schemes = append(schemes, "x509")
	}
	return schemes
}

// adminX509IDs are the ids of the client certificate, as x509IDs gives a
// client connection.
func (s *Server) adminX509IDs(peerCerts []*x509.Certificate) ([]wire.Id, error) {
	if len(peerCerts) == 0 {
		return nil, ErrAdminNotAuthenticated
	}
	subject, err := auth.SubjectID(peerCerts[0])
	if err != nil {
		return nil, ErrAdminNotAuthenticated
	}
	var ids []wire.Id
	if su := s.cfg.Security.X509SuperUser; su != "" && su == subject {
		ids = append(ids, wire.Id{Scheme: "super", ID: subject})
	}
	return append(ids, wire.Id{Scheme: "x509", ID: subject}), nil
}

// hostOnly strips a port from an address, if it has one.
func hostOnly(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return strings.Trim(addr, "[]")
}
