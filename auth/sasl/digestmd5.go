package sasl

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"

	"github.com/zkraft/zkraft/auth/digestmd5"
)

// Defaults of the DigestMD5 fields, as ZooKeeper 3.8 sets them.
const (
	MechanismDigestMD5 = "DIGEST-MD5"
	DefaultRealm       = "zk-sasl-md5"
	DefaultProtocol    = "zookeeper"
	DefaultServerName  = "zk-sasl-md5"
	// MaxTokenSize is the largest client token accepted, the JDK's
	// MAX_RESPONSE_LENGTH.
	MaxTokenSize = 4096
)

// rawNonceSize is the JDK's RAW_NONCE_SIZE: 30 random bytes, 40 base64
// characters.
const rawNonceSize = 30

// DigestMD5 configures DIGEST-MD5 servers. Its fields must not change
// while servers made from it are in use.
type DigestMD5 struct {
	Users      map[string]string // user name -> password
	Realm      string            // default "zk-sasl-md5"
	Protocol   string            // default "zookeeper"
	ServerName string            // default "zk-sasl-md5"
	Rand       io.Reader         // nonce source; default crypto/rand
}

// NewServer starts one connection's exchange.
func (d *DigestMD5) NewServer() Server {
	cfg := *d
	cfg.Realm = orDefault(cfg.Realm, DefaultRealm)
	cfg.Protocol = orDefault(cfg.Protocol, DefaultProtocol)
	cfg.ServerName = orDefault(cfg.ServerName, DefaultServerName)
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	return &digestServer{cfg: cfg}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

type serverState int

const (
	stateStart serverState = iota
	stateChallenged
	stateFinished // done or failed: every further step fails
)

type digestServer struct {
	cfg    DigestMD5
	state  serverState
	nonce  []byte
	authID string
}

func (s *digestServer) Mechanism() string { return MechanismDigestMD5 }

func (s *digestServer) AuthorizationID() string { return s.authID }

func (s *digestServer) Step(response []byte) ([]byte, bool, error) {
	state := s.state
	s.state = stateFinished
	if len(response) > MaxTokenSize {
		return nil, false, fmt.Errorf("%w: token of %d bytes", ErrAuthFailed, len(response))
	}
	switch state {
	case stateStart:
		// A first token is ignored: no subsequent authentication.
		return s.challenge()
	case stateChallenged:
		return s.verify(response)
	default:
		return nil, false, ErrAuthFailed
	}
}

// challenge builds the digest-challenge the JDK sends when no qop, maxbuf
// or cipher is configured.
func (s *digestServer) challenge() ([]byte, bool, error) {
	raw := make([]byte, rawNonceSize)
	if _, err := io.ReadFull(s.cfg.Rand, raw); err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrNonce, err)
	}
	s.nonce = base64.StdEncoding.AppendEncode(nil, raw)
	c := []byte(`realm="`)
	c = append(c, digestmd5.QuoteValue(s.cfg.Realm)...)
	c = append(c, `",nonce="`...)
	c = append(c, s.nonce...)
	c = append(c, `",charset=utf-8,algorithm=md5-sess`...)
	s.state = stateChallenged
	return c, false, nil
}
