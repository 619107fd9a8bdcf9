package integration

import (
	"crypto/md5"
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// digestLogin runs a DIGEST-MD5 exchange on c as ZooKeeper's clients do
// (an empty first token, then the RFC 2831 digest-response) and returns
// the reply to the response. This client is written apart from the
// server's auth/sasl code, so a mistake there does not hide itself here.
func digestLogin(t *testing.T, c *rawClient, user, password string) rawReply {
	t.Helper()
	var challenge wire.SASLResponse
	r, err := c.Call(wire.OpSASL, &wire.SASLRequest{Token: []byte{}}, &challenge)
	require.NoError(t, err)
	require.Equal(t, wire.CodeOK, r.Hdr.Err)
	m := regexp.MustCompile(`nonce="([^"]+)"`).FindSubmatch(challenge.Token)
	require.NotNil(t, m, "challenge %q has a nonce", challenge.Token)
	nonce, cnonce, uri, realm := string(m[1]), "OA6MHXh6VqTrRk", "zookeeper/zk-sasl-md5", "zk-sasl-md5"
	h := func(s string) string { return fmt.Sprintf("%x", md5.Sum([]byte(s))) }
	sum := md5.Sum([]byte(user + ":" + realm + ":" + password))
	a1 := string(sum[:]) + ":" + nonce + ":" + cnonce
	resp := h(h(a1) + ":" + nonce + ":00000001:" + cnonce + ":auth:" + h("AUTHENTICATE:"+uri))
	token := fmt.Sprintf(`charset=utf-8,username="%s",realm="%s",nonce="%s",nc=00000001,cnonce="%s",`+
		`digest-uri="%s",maxbuf=65536,response=%s,qop=auth`, user, realm, nonce, cnonce, uri, resp)
	var final wire.SASLResponse
	r, err = c.Call(wire.OpSASL, &wire.SASLRequest{Token: []byte(token)}, &final)
	require.NoError(t, err)
	r.Body = final.Token
	return r
}

// whoAmI returns the connection's ids as scheme:user strings.
func whoAmI(t *testing.T, c *rawClient) []string {
	t.Helper()
	var w wire.WhoAmIResponse
	r, err := c.Call(wire.OpWhoAmI, nil, &w)
	require.NoError(t, err)
	require.Equal(t, wire.CodeOK, r.Hdr.Err)
	var out []string
	for _, ci := range w.ClientInfo {
		out = append(out, ci.AuthScheme+":"+ci.User)
	}
	return out
}

func TestSASL_DigestLoginEarnsIDs(t *testing.T) {
	s := startSASLServer(t, func(c *server.Config) { c.Security.SuperUser = "bob" })
	c, err := connectRaw(s.Addr(), 10000)
	require.NoError(t, err)
	defer c.Close()
	r := digestLogin(t, c, "bob", "bobsecret")
	require.Equal(t, wire.CodeOK, r.Hdr.Err)
	require.Regexp(t, `^rspauth=[0-9a-f]{32}$`, string(r.Body), "the last challenge proves the server knows the password")
	require.Equal(t, int64(0), r.Hdr.Zxid, "SASL replies carry zxid 0, as ZooKeeper's")
	require.ElementsMatch(t, []string{"ip:127.0.0.1", "sasl:bob", "super:"}, whoAmI(t, c),
		"zookeeper.superUser names bob: his login earns super too")

	// A further token after success fails, as the JDK's server does.
	r, err = c.Call(wire.OpSASL, &wire.SASLRequest{Token: []byte("again")}, nil)
	require.NoError(t, err)
	require.Equal(t, wire.CodeAuthFailed, r.Hdr.Err)
	_, closed, err := c.WaitClosed(rawTimeout)
	require.NoError(t, err)
	require.True(t, closed || c.Closed())
}

func TestSASL_FailedLogin(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*server.Config)
		code  wire.Code
		stays bool
	}{
		{"closes with AUTHFAILED", nil, wire.CodeAuthFailed, false},
		{"allowSaslFailedClients keeps the connection", func(c *server.Config) { c.Security.AllowSASLFailedClients = true }, wire.CodeOK, true},
		{"enforced SASL closes with SESSIONCLOSEDREQUIRESASLAUTH", func(c *server.Config) {
			c.Security.AllowSASLFailedClients = true // enforcement wins over it
			c.Security.EnforceAuth, c.Security.EnforceAuthSchemes = true, []string{"sasl"}
		}, wire.CodeSessionClosedRequireSASL, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startSASLServer(t, tc.edit)
			for _, who := range [][2]string{{"bob", "wrong"}, {"mallory", "bobsecret"}} {
				c, err := connectRaw(s.Addr(), 10000)
				require.NoError(t, err)
				defer c.Close()
				r := digestLogin(t, c, who[0], who[1])
				require.Equal(t, tc.code, r.Hdr.Err, "%s/%s", who[0], who[1])
				require.Equal(t, int64(0), r.Hdr.Zxid)
				if tc.stays {
					require.Empty(t, r.Body, "a kept failed login gets a null token")
					require.Equal(t, []string{"ip:127.0.0.1"}, whoAmI(t, c), "still unauthenticated")
					continue
				}
				_, closed, err := c.WaitClosed(rawTimeout)
				require.NoError(t, err)
				require.True(t, closed || c.Closed(), "the connection closes after a failed login")
			}
		})
	}
}
