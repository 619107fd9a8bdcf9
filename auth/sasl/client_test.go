package sasl

import (
	"crypto/md5"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/auth/digestmd5"
)

// testClient is an RFC 2831 client written independently of the server's
// digest code, with knobs to send what broken or hostile clients send.
type testClient struct {
	user, pass string
	authzid    *string // nil: no authzid directive
	realm      *string // nil: the challenge's realm
	noRealm    bool    // omit the realm directive
	uri        string  // default "zookeeper/zk-sasl-md5"
	qop        string  // "" omits the qop directive
	nc         string  // default "00000001"; "-" omits nc
	noCharset  bool    // omit charset=utf-8
	utf8Only   bool    // hash UTF-8 bytes even when ISO-8859-1 fits
	cnonce     string  // default "c1c2c3c4"; "-" sends cnonce=""
	extra      string  // appended to the response as is
	mutate     func(string) string
}

func strp(s string) *string { return &s }

// challengeValues parses a challenge with the same directive parser.
func challengeValues(t testing.TB, ch []byte) (realm, nonce string) {
	t.Helper()
	v, err := digestmd5.ParseDirectives(ch, []string{"realm", "nonce", "charset", "algorithm", "qop"})
	require.NoError(t, err)
	require.Nil(t, v[4], "the challenge must not offer a qop")
	require.Equal(t, "utf-8", string(v[2]))
	require.Equal(t, "md5-sess", string(v[3]))
	return string(v[0]), string(v[1])
}

func (c testClient) defaults() testClient {
	if c.uri == "" {
		c.uri = "zookeeper/zk-sasl-md5"
	}
	if c.nc == "" {
		c.nc = "00000001"
	}
	switch c.cnonce {
	case "":
		c.cnonce = "c1c2c3c4"
	case "-":
		c.cnonce = ""
	}
	return c
}

func md5hex(s string) string { return fmt.Sprintf("%x", md5.Sum([]byte(s))) }

func (c testClient) enc(s string) string {
	if c.utf8Only {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r > 0xFF {
			return s
		}
		b.WriteByte(byte(r))
	}
	return b.String()
}

// digest computes the response (method "AUTHENTICATE") or rspauth ("").
func (c testClient) digest(method, realm, nonce string) string {
	qop := c.qop
	if qop == "" {
		qop = "auth"
	}
	nc := c.nc
	if nc == "-" {
		nc = "00000001"
	}
	secret := md5.Sum([]byte(c.enc(c.user) + ":" + c.enc(realm) + ":" + c.enc(c.pass)))
	a1 := string(secret[:]) + ":" + nonce + ":" + c.cnonce
	if c.authzid != nil {
		a1 += ":" + *c.authzid
	}
	return md5hex(md5hex(a1) + ":" + nonce + ":" + nc + ":" + c.cnonce + ":" + qop + ":" + md5hex(method+":"+c.uri))
}

func q(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// respond answers a challenge; it also returns the rspauth it expects.
func (c testClient) respond(t testing.TB, ch []byte) (resp []byte, rspauth string) {
	t.Helper()
	c = c.defaults()
	realm, nonce := challengeValues(t, ch)
	if c.realm != nil {
		realm = *c.realm
	}
	parts := []string{"username=" + q(c.user)}
	if !c.noRealm {
		parts = append(parts, "realm="+q(realm))
	}
	parts = append(parts, "nonce="+q(nonce), "cnonce="+q(c.cnonce))
	if c.nc != "-" {
		parts = append(parts, "nc="+c.nc)
	}
	if c.qop != "" {
		parts = append(parts, "qop="+c.qop)
	}
	parts = append(parts, "digest-uri="+q(c.uri), "maxbuf=65536")
	if !c.noCharset {
		parts = append(parts, "charset=utf-8")
	}
	parts = append(parts, "response="+c.digest("AUTHENTICATE", realm, nonce))
	if c.authzid != nil {
		parts = append(parts, "authzid="+q(*c.authzid))
	}
	s := strings.Join(parts, ",") + c.extra
	if c.mutate != nil {
		s = c.mutate(s)
	}
	return []byte(s), "rspauth=" + c.digest("", realm, nonce)
}

// exchange runs a whole exchange with a new server of d.
func exchange(t testing.TB, d *DigestMD5, c testClient) (Server, error) {
	t.Helper()
	s := d.NewServer()
	return s, runExchange(t, s, c)
}

// runExchange runs c's exchange with s; a success must end with the
// rspauth c expects.
func runExchange(t testing.TB, s Server, c testClient) error {
	t.Helper()
	require.Equal(t, "DIGEST-MD5", s.Mechanism())
	ch, done, err := s.Step(nil)
	require.NoError(t, err)
	require.False(t, done)
	resp, rspauth := c.respond(t, ch)
	final, done, err := s.Step(resp)
	if err != nil {
		require.False(t, done)
		require.Nil(t, final)
		require.Empty(t, s.AuthorizationID())
		return err
	}
	require.True(t, done)
	require.Equal(t, rspauth, string(final))
	return nil
}
