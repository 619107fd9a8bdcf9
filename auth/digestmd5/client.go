package digestmd5

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Defaults of the Client fields, as ZooKeeper's Java client sets them.
const (
	DefaultProtocol   = "zookeeper"
	DefaultServerName = "zk-sasl-md5"
)

// rawCnonceSize is the JDK's RAW_NONCE_SIZE: 30 random bytes, 40 base64
// characters.
const rawCnonceSize = 30

// Errors of the client's exchange.
var (
	// ErrChallenge is returned, wrapped with the reason, for a
	// digest-challenge the client refuses.
	ErrChallenge = errors.New("digestmd5: bad challenge")
	// ErrServerProof is returned when the server's rspauth is missing or
	// wrong: the server does not know the password.
	ErrServerProof = errors.New("digestmd5: server did not prove it knows the password")
	// ErrOutOfTurn is returned for a step after the exchange ended.
	ErrOutOfTurn = errors.New("digestmd5: step after the exchange ended")
)

// Client configures the client side of an exchange (see the package
// documentation). Use NewExchange for each connection.
type Client struct {
	Username, Password string
	// Authzid is the authorization id; "" sends the user name, as
	// ZooKeeper's Java client does.
	Authzid    string
	Protocol   string    // default "zookeeper"
	ServerName string    // default "zk-sasl-md5"
	Rand       io.Reader // cnonce source; default crypto/rand
}

// Exchange is one connection's client exchange.
type Exchange struct {
	cfg   Client
	step  int
	proof []byte // the rspauth the server must send
}

// NewExchange starts an exchange.
func (c *Client) NewExchange() *Exchange {
	cfg := *c
	if cfg.Authzid == "" {
		cfg.Authzid = cfg.Username
	}
	if cfg.Protocol == "" {
		cfg.Protocol = DefaultProtocol
	}
	if cfg.ServerName == "" {
		cfg.ServerName = DefaultServerName
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	return &Exchange{cfg: cfg}
}

// Initial is the first token: empty, DIGEST-MD5 having no initial
// response.
func (x *Exchange) Initial() []byte { return []byte{} }

// Step answers the server's token: the digest-challenge with the
// digest-response, then rspauth with nothing (done is true once the
// server's proof checked out).
func (x *Exchange) Step(token []byte) (response []byte, done bool, err error) {
	step := x.step
	x.step = 3 // an error ends the exchange
	switch step {
	case 0:
		response, err = x.respond(token)
		if err != nil {
			return nil, false, err
		}
		x.step = 1
		return response, false, nil
	case 1:
		if err := x.checkProof(token); err != nil {
			return nil, false, err
		}
		x.step = 2
		return nil, true, nil
	default:
		return nil, false, ErrOutOfTurn
	}
}

// challengeKeys are the digest-challenge directives the client reads.
var challengeKeys = []string{"realm", "nonce", "qop", "charset", "algorithm", "stale", "maxbuf", "cipher"}

const (
	chRealm = iota
	chNonce
	chQop
	chCharset
	chAlgorithm
)

// respond checks the digest-challenge and builds the digest-response.
func (x *Exchange) respond(challenge []byte) ([]byte, error) {
	d, err := ParseDirectives(challenge, challengeKeys)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrChallenge, err)
	}
	if err := checkChallenge(d); err != nil {
		return nil, err
	}
	raw := make([]byte, rawCnonceSize)
	if _, err := io.ReadFull(x.cfg.Rand, raw); err != nil {
		return nil, fmt.Errorf("digestmd5: cannot generate cnonce: %w", err)
	}
	in := &Input{
		Username: x.cfg.Username, Realm: string(d[chRealm]), Password: x.cfg.Password,
		Nonce: d[chNonce], Cnonce: base64.StdEncoding.AppendEncode(nil, raw),
		Authzid:   []byte(x.cfg.Authzid),
		DigestURI: x.cfg.Protocol + "/" + x.cfg.ServerName, Qop: "auth",
	}
	x.proof = append([]byte("rspauth="), ResponseValue("", in)...)
	return digestResponse(in, d[chRealm] != nil, d[chCharset] != nil), nil
}

// checkChallenge refuses what the JDK's client refuses (and several
// realms).
func checkChallenge(d [][]byte) error {
	switch {
	case d[chNonce] == nil:
		return fmt.Errorf("%w: no nonce", ErrChallenge)
	case d[chCharset] != nil && !strings.EqualFold(string(d[chCharset]), "utf-8"):
		return fmt.Errorf("%w: charset %q", ErrChallenge, d[chCharset])
	case !strings.EqualFold(string(d[chAlgorithm]), "md5-sess"):
		return fmt.Errorf("%w: algorithm %q", ErrChallenge, d[chAlgorithm])
	case bytes.ContainsRune(d[chRealm], ','):
		return fmt.Errorf("%w: several realms", ErrChallenge)
	}
	if d[chQop] != nil && !hasToken(string(d[chQop]), "auth") {
		return fmt.Errorf("%w: qop %q does not offer auth", ErrChallenge, d[chQop])
	}
	return nil
}

// hasToken reports whether the comma-separated list holds tok.
func hasToken(list, tok string) bool {
	for _, t := range strings.Split(list, ",") {
		if strings.EqualFold(strings.TrimSpace(t), tok) {
			return true
		}
	}
	return false
}

// digestResponse writes the directives in the JDK client's order.
func digestResponse(in *Input, withRealm, utf8 bool) []byte {
	var b []byte
	if utf8 {
		b = append(b, "charset=utf-8,"...)
	}
	b = quoted(b, "username", in.Username)
	if withRealm {
		b = quoted(b, "realm", in.Realm)
	}
	b = quoted(b, "nonce", string(in.Nonce))
	b = append(b, "nc="+NC+","...)
	b = quoted(b, "cnonce", string(in.Cnonce))
	b = quoted(b, "digest-uri", in.DigestURI)
	b = append(b, "maxbuf=65536,response="...)
	b = append(b, ResponseValue("AUTHENTICATE", in)...)
	b = append(b, ",qop=auth"...)
	if in.Authzid != nil {
		b = append(b, ',')
		b = quoted(b, "authzid", string(in.Authzid))
		b = b[:len(b)-1] // no trailing comma
	}
	return b
}

// quoted appends name="value", with a trailing comma.
func quoted(b []byte, name, value string) []byte {
	b = append(b, name+`="`...)
	b = append(b, QuoteValue(value)...)
	return append(b, `",`...)
}

// checkProof checks the server's rspauth.
func (x *Exchange) checkProof(token []byte) error {
	d, err := ParseDirectives(token, []string{"rspauth"})
	if err != nil || d[0] == nil {
		return ErrServerProof
	}
	if subtle.ConstantTimeCompare(append([]byte("rspauth="), d[0]...), x.proof) != 1 {
		return ErrServerProof
	}
	return nil
}
