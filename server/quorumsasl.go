package server

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/zkraft/zkraft/auth/digestmd5"
	"github.com/zkraft/zkraft/auth/jaas"
	"github.com/zkraft/zkraft/auth/sasl"
	"github.com/zkraft/zkraft/consensus"
)

// SASL between the servers of an ensemble, with ZooKeeper 3.8's
// quorum.auth.* keys and DIGEST-MD5 credentials from the JAAS file:
// a server proves itself with the username and password of its
// QuorumLearner section, and checks its peers against the user_NAME
// entries of its QuorumServer section. The exchange on each link is in
// quorumsasl_link.go, the network that runs it in quorumsasl_net.go.

// QuorumSASL is the quorum.auth.* part of a configuration.
type QuorumSASL struct {
	// Enabled (quorum.auth.enableSasl) makes the server answer peers that
	// authenticate, and load both JAAS sections.
	Enabled bool
	// LearnerRequire (quorum.auth.learnerRequireSasl) makes the server
	// authenticate on every link to a peer, and drop the link when that
	// fails; without it the server sends no authentication at all.
	LearnerRequire bool
	// ServerRequire (quorum.auth.serverRequireSasl) makes the server drop
	// every link whose peer does not authenticate successfully; without
	// it, a peer that does not try is let through, and so (with a
	// warning) is one whose attempt failed.
	ServerRequire bool
	// ServerContext and LearnerContext name the JAAS sections
	// (quorum.auth.server.saslLoginContext, default QuorumServer;
	// quorum.auth.learner.saslLoginContext, default QuorumLearner).
	ServerContext, LearnerContext string
	// KerberosPrincipal is quorum.auth.kerberos.servicePrincipal, which
	// only GSSAPI uses: set with Enabled, it stops the start.
	KerberosPrincipal string
}

// Default JAAS section names and the SASL names of ZooKeeper's quorum
// authentication (QuorumAuth.java).
const (
	defaultQuorumServerSection  = "QuorumServer"
	defaultQuorumLearnerSection = "QuorumLearner"
	quorumSASLProtocol          = "zookeeper-quorum"
	quorumSASLServerName        = "zk-quorum-sasl-md5"
)

// quorumAuthKeys are the quorum.auth.* keys. QuorumPeerConfig reads them
// from zoo.cfg only, never as system properties, and so does zkraft.
var quorumAuthKeys = map[string]func(q *QuorumSASL, v string) error{
	"quorum.auth.enableSasl":                quorumBool(func(q *QuorumSASL) *bool { return &q.Enabled }),
	"quorum.auth.learnerRequireSasl":        quorumBool(func(q *QuorumSASL) *bool { return &q.LearnerRequire }),
	"quorum.auth.serverRequireSasl":         quorumBool(func(q *QuorumSASL) *bool { return &q.ServerRequire }),
	"quorum.auth.server.saslLoginContext":   func(q *QuorumSASL, v string) error { q.ServerContext = v; return nil },
	"quorum.auth.learner.saslLoginContext":  func(q *QuorumSASL, v string) error { q.LearnerContext = v; return nil },
	"quorum.auth.kerberos.servicePrincipal": func(q *QuorumSASL, v string) error { q.KerberosPrincipal = v; return nil },
}

func quorumBool(field func(*QuorumSASL) *bool) func(*QuorumSASL, string) error {
	return func(q *QuorumSASL, v string) error {
		b, err := parseBool(v)
		*field(q) = b
		return err
	}
}

// Errors of the quorum.auth.* settings; each stops the start.
var (
	errQuorumRequireNotEnabled    = errors.New("quorum.auth.enableSasl is false, so quorum.auth.serverRequireSasl and quorum.auth.learnerRequireSasl cannot be true")
	errQuorumServerWithoutLearner = errors.New("quorum.auth.learnerRequireSasl is false, so quorum.auth.serverRequireSasl cannot be true (this server could not join its own ensemble)")
	errQuorumKerberos             = errors.New("quorum.auth.kerberos.servicePrincipal: GSSAPI (Kerberos) between servers is not implemented; zkraft authenticates servers with DIGEST-MD5 only")
	errQuorumNoJAAS               = errors.New("quorum.auth.enableSasl=true needs a JAAS file (java.security.auth.login.config) with QuorumServer and QuorumLearner sections")
	errQuorumNoCredentials        = errors.New("has no username and password")
)

// check applies QuorumPeerConfig's rules between the keys.
func (q QuorumSASL) check() error {
	switch {
	case !q.Enabled && (q.ServerRequire || q.LearnerRequire):
		return errQuorumRequireNotEnabled
	case q.ServerRequire && !q.LearnerRequire:
		return errQuorumServerWithoutLearner
	case q.Enabled && q.KerberosPrincipal != "":
		return fmt.Errorf("%w (%w)", errQuorumKerberos, errUnsupportedSecurity)
	}
	return nil
}

func (q QuorumSASL) sections() (server, learner string) {
	server, learner = q.ServerContext, q.LearnerContext
	if server == "" {
		server = defaultQuorumServerSection
	}
	if learner == "" {
		learner = defaultQuorumLearnerSection
	}
	return server, learner
}

// quorumCredentials are what a server authenticates its peers with and
// proves itself with.
type quorumCredentials struct {
	server  *sasl.DigestMD5   // QuorumServer's users
	learner *digestmd5.Client // QuorumLearner's username and password
}

// loadQuorumCredentials reads both sections from the JAAS file, as
// ZooKeeper's SaslQuorumAuthServer and SaslQuorumAuthLearner do whether
// or not the require keys are set: a section that is missing, or that
// logs in with anything but DigestLoginModule, stops the start.
func loadQuorumCredentials(sec Security) (*quorumCredentials, error) {
	if sec.JAASFile == "" {
		return nil, errQuorumNoJAAS
	}
	cfg, err := jaas.ParseFile(sec.JAASFile, jaas.SystemProperties(sec.SystemProperties))
	if err != nil {
		return nil, fmt.Errorf("JAAS login configuration: %w", err)
	}
	serverSection, learnerSection := sec.QuorumSASL.sections()
	if err := quorumDigestOnly(cfg, serverSection); err != nil {
		return nil, err
	}
	if err := quorumDigestOnly(cfg, learnerSection); err != nil {
		return nil, err
	}
	users, err := cfg.DigestUsers(serverSection)
	if err != nil {
		return nil, fmt.Errorf("JAAS section %s: %w", serverSection, err)
	}
	learner, err := learnerLogin(cfg, learnerSection)
	if err != nil {
		return nil, err
	}
	return &quorumCredentials{
		server:  &sasl.DigestMD5{Users: users, Realm: quorumSASLServerName, Protocol: quorumSASLProtocol, ServerName: quorumSASLServerName},
		learner: learner,
	}, nil
}

// quorumDigestOnly checks that section exists and holds only
// DigestLoginModule entries.
func quorumDigestOnly(cfg *jaas.Config, section string) error {
	entries, ok := cfg.Section(section)
	if !ok {
		return fmt.Errorf("JAAS section %s (quorum.auth.enableSasl=true): %w", section, jaas.ErrNoSection)
	}
	for _, e := range entries {
		switch e.Module {
		case jaas.DigestLoginModule:
		case jaas.Krb5LoginModule:
			return fmt.Errorf("JAAS section %s: %s: GSSAPI (Kerberos) between servers: %w (use %s)",
				section, e.Module, errUnsupportedSecurity, jaas.DigestLoginModule)
		default:
			return fmt.Errorf("JAAS section %s: login module %s: %w (servers authenticate each other with %s)",
				section, e.Module, errUnsupportedSecurity, jaas.DigestLoginModule)
		}
	}
	return nil
}

// learnerLogin is the learner section's username and password, as
// ZooKeeper's DigestLoginModule takes them (the last entry that has them).
func learnerLogin(cfg *jaas.Config, section string) (*digestmd5.Client, error) {
	entries, _ := cfg.Section(section)
	var c *digestmd5.Client
	for _, e := range entries {
		user, hasUser := e.Options["username"]
		pw, hasPW := e.Options["password"]
		if hasUser && hasPW && user != "" {
			c = &digestmd5.Client{Username: user, Password: pw, Protocol: quorumSASLProtocol, ServerName: quorumSASLServerName}
		}
	}
	if c == nil {
		return nil, fmt.Errorf("JAAS section %s: %w", section, errQuorumNoCredentials)
	}
	return c, nil
}

// quorumHandshakeTimeout bounds a link's authentication: tickTime ×
// syncLimit, ZooKeeper's socket timeout between servers, or the Raft
// transport's link timeout when syncLimit is not set.
func (c Config) quorumHandshakeTimeout() time.Duration {
	if c.SyncLimit > 0 {
		return c.TickTime * time.Duration(c.SyncLimit)
	}
	return consensus.DefaultLinkTimeout
}

// authenticateQuorum puts SASL on the ensemble's links when
// quorum.auth.enableSasl asks for it, inside TLS when sslQuorum is on
// too; a standalone server has no such links, as in ZooKeeper.
func (s *Server) authenticateQuorum() error {
	q := s.cfg.Security.QuorumSASL
	if !q.Enabled || !s.cfg.ensemble() {
		return nil
	}
	nw, err := quorumSASL(s.cfg, s.network, s.log)
	if err != nil {
		return err
	}
	s.network = nw
	s.log.Info("quorum SASL (DIGEST-MD5) on the links between servers",
		"learnerRequireSasl", q.LearnerRequire, "serverRequireSasl", q.ServerRequire)
	return nil
}

// quorumSASL wraps nw so that its links authenticate as cfg's
// quorum.auth.* keys ask.
func quorumSASL(cfg Config, nw consensus.Network, log *slog.Logger) (consensus.Network, error) {
	q := cfg.Security.QuorumSASL
	if err := q.check(); err != nil {
		return nil, fmt.Errorf("server: quorum SASL: %w", err)
	}
	creds, err := loadQuorumCredentials(cfg.Security)
	if err != nil {
		return nil, fmt.Errorf("server: quorum SASL: %w", err)
	}
	if nw == nil {
		nw = consensus.TCP{}
	}
	p := &linkPolicy{creds: creds, learnerRequire: q.LearnerRequire, serverRequire: q.ServerRequire,
		timeout: cfg.quorumHandshakeTimeout(), log: log}
	return newSASLNetwork(nw, p), nil
}
