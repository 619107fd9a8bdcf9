package sasl

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zkraft/zkraft/auth/digestmd5"
)

// The digest-response directives the JDK server knows, plus "nc", which
// it does not read (see the package documentation).
var responseKeys = []string{
	"username", "realm", "nonce", "cnonce", "nonce-count", "qop",
	"digest-uri", "response", "maxbuf", "charset", "cipher", "authzid",
	"auth-param", "nc",
}

const (
	keyUsername = iota
	keyRealm
	keyNonce
	keyCnonce
	keyNonceCount
	keyQop
	keyDigestURI
	keyResponse
	keyMaxbuf
	keyCharset
	keyCipher
	keyAuthzid
	keyAuthParam
	keyNC
)

// verify checks the digest-response and, when it proves the password,
// returns rspauth.
func (s *digestServer) verify(response []byte) ([]byte, bool, error) {
	d, err := digestmd5.ParseDirectives(response, responseKeys)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrAuthFailed, err)
	}
	in, err := s.check(d)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %s", ErrAuthFailed, err.Error())
	}
	want := digestmd5.ResponseValue("AUTHENTICATE", in)
	if subtle.ConstantTimeCompare(d[keyResponse], want) != 1 {
		return nil, false, fmt.Errorf("%w: wrong response", ErrAuthFailed)
	}
	s.authID = in.Username
	return append([]byte("rspauth="), digestmd5.ResponseValue("", in)...), true, nil
}

// reason is a failed check; its text goes into the wrapped ErrAuthFailed.
type reason string

func (r reason) Error() string { return string(r) }

// check runs the JDK server's checks in its order and gathers what the
// digest needs.
func (s *digestServer) check(d [][]byte) (*digestmd5.Input, error) {
	if err := checkOptional(d); err != nil {
		return nil, err
	}
	in := &digestmd5.Input{Nonce: s.nonce, Cnonce: d[keyCnonce], Authzid: d[keyAuthzid]}
	if err := s.checkIdentity(d, in); err != nil {
		return nil, err
	}
	if err := s.checkSession(d, in); err != nil {
		return nil, err
	}
	pw, ok := s.cfg.Users[in.Username]
	if !ok {
		return nil, reason("unknown user")
	}
	in.Password = pw
	return in, nil
}

// checkOptional checks charset, maxbuf and the nonce counts.
func checkOptional(d [][]byte) error {
	if v := d[keyCharset]; v != nil && string(v) != "utf-8" {
		return reason("charset is not utf-8")
	}
	if v := d[keyMaxbuf]; v != nil && !javaInt(v, 10) {
		return reason("malformed maxbuf")
	}
	for _, k := range []int{keyNonceCount, keyNC} {
		if v := d[k]; v != nil && !isOne(v) {
			return reason("nonce count is not 1")
		}
	}
	return nil
}

// checkIdentity checks username, realm, nonce and cnonce.
func (s *digestServer) checkIdentity(d [][]byte, in *digestmd5.Input) error {
	// The JDK's NameCallback refuses an empty name.
	u := d[keyUsername]
	if len(u) == 0 || !utf8.Valid(u) {
		return reason("missing or malformed username")
	}
	in.Username = string(u)
	// An absent realm is "", which is not among the server's realms.
	if !bytes.Equal(d[keyRealm], []byte(s.cfg.Realm)) {
		return reason("wrong realm")
	}
	in.Realm = s.cfg.Realm
	if !bytes.Equal(d[keyNonce], s.nonce) {
		return reason("wrong nonce")
	}
	if in.Cnonce == nil {
		return reason("missing cnonce")
	}
	return nil
}

// checkSession checks qop, digest-uri and that a response was sent.
func (s *digestServer) checkSession(d [][]byte, in *digestmd5.Input) error {
	in.Qop = "auth"
	if v := d[keyQop]; v != nil {
		in.Qop = string(v)
	}
	if in.Qop != "auth" {
		return reason("qop " + quoteReason(in.Qop) + " not offered")
	}
	uri := d[keyDigestURI]
	want := s.cfg.Protocol + "/" + s.cfg.ServerName
	if uri == nil || !utf8.Valid(uri) || !strings.EqualFold(string(uri), want) {
		return reason("wrong digest-uri")
	}
	in.DigestURI = string(uri)
	if d[keyResponse] == nil {
		return reason("missing response")
	}
	return nil
}

// quoteReason shortens client text for an error message.
func quoteReason(s string) string {
	if len(s) > 16 {
		s = s[:16]
	}
	return fmt.Sprintf("%q", s)
}

// isOne reports whether v is hexadecimal 1 as Java's
// Integer.parseInt(v, 16) reads it.
func isOne(v []byte) bool {
	n, ok := javaParseInt(v, 16)
	return ok && n == 1
}

func javaInt(v []byte, radix int) bool {
	_, ok := javaParseInt(v, radix)
	return ok
}

// javaParseInt is Integer.parseInt for ASCII digits: an optional sign,
// then at least one digit, within 32 bits.
func javaParseInt(v []byte, radix int) (int64, bool) {
	neg := false
	if len(v) > 0 && (v[0] == '+' || v[0] == '-') {
		neg, v = v[0] == '-', v[1:]
	}
	if len(v) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		dig := digitValue(c)
		if dig < 0 || dig >= radix {
			return 0, false
		}
		if n = n*int64(radix) + int64(dig); n > 1<<31 {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	return n, n <= 1<<31-1 && n >= -1<<31
}

func digitValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}
