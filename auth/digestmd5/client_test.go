package digestmd5_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/auth/digestmd5"
	"github.com/zkraft/zkraft/auth/sasl"
)

var users = map[string]string{"bob": "bobsecret", "jürgen": "pässword", "zoë": "пароль"}

// login runs a whole exchange between a client and auth/sasl's server,
// which checks responses as the JDK's server does.
func login(t *testing.T, c *digestmd5.Client) (id string, err error) {
	t.Helper()
	srv := (&sasl.DigestMD5{Users: users}).NewServer()
	x := c.NewExchange()
	challenge, done, err := srv.Step(x.Initial())
	require.NoError(t, err)
	require.False(t, done)
	resp, done, err := x.Step(challenge)
	require.NoError(t, err)
	require.False(t, done)
	final, done, err := srv.Step(resp)
	if err != nil {
		return "", err
	}
	require.True(t, done)
	_, done, err = x.Step(final)
	require.NoError(t, err)
	require.True(t, done)
	_, _, err = x.Step(final)
	require.ErrorIs(t, err, digestmd5.ErrOutOfTurn)
	return srv.AuthorizationID(), nil
}

func TestClientAgainstServer(t *testing.T) {
	for user, pass := range users {
		id, err := login(t, &digestmd5.Client{Username: user, Password: pass})
		require.NoError(t, err, user)
		require.Equal(t, user, id)
	}
	_, err := login(t, &digestmd5.Client{Username: "bob", Password: "wrong"})
	require.ErrorIs(t, err, sasl.ErrAuthFailed)
	_, err = login(t, &digestmd5.Client{Username: "alice", Password: "bobsecret"})
	require.ErrorIs(t, err, sasl.ErrAuthFailed)
	// The server takes the authenticated user, not the authzid, as id.
	id, err := login(t, &digestmd5.Client{Username: "bob", Password: "bobsecret", Authzid: "super"})
	require.NoError(t, err)
	require.Equal(t, "bob", id)
}

// TestClientResponse checks the digest-response's directives, in the JDK
// client's order, with a fixed cnonce.
func TestClientResponse(t *testing.T) {
	c := &digestmd5.Client{Username: `b"ob`, Password: "pw", Rand: bytes.NewReader(make([]byte, 30))}
	resp, done, err := c.NewExchange().Step([]byte(`realm="zk-sasl-md5",nonce="N0nce",charset=utf-8,algorithm=md5-sess`))
	require.NoError(t, err)
	require.False(t, done)
	cnonce := strings.Repeat("A", 40)
	want := `charset=utf-8,username="b\"ob",realm="zk-sasl-md5",nonce="N0nce",nc=00000001,cnonce="` + cnonce +
		`",digest-uri="zookeeper/zk-sasl-md5",maxbuf=65536,response=`
	require.True(t, strings.HasPrefix(string(resp), want), "%s", resp)
	require.True(t, strings.HasSuffix(string(resp), `,qop=auth,authzid="b\"ob"`), "%s", resp)
	in := &digestmd5.Input{Username: `b"ob`, Realm: "zk-sasl-md5", Password: "pw", Nonce: []byte("N0nce"),
		Cnonce: []byte(cnonce), Authzid: []byte(`b"ob`), DigestURI: "zookeeper/zk-sasl-md5", Qop: "auth"}
	require.Contains(t, string(resp), "response="+string(digestmd5.ResponseValue("AUTHENTICATE", in))+",")

	// No realm offered: none sent, and the digest uses "".
	c.Rand = nil
	resp, _, err = c.NewExchange().Step([]byte(`nonce="n",algorithm=md5-sess`))
	require.NoError(t, err)
	require.NotContains(t, string(resp), "realm=")
	require.NotContains(t, string(resp), "charset=")
}

func TestClientRefusesChallenge(t *testing.T) {
	for name, ch := range map[string]string{
		"no nonce":      `realm="r",algorithm=md5-sess`,
		"md5":           `nonce="n",algorithm=md5`,
		"no algorithm":  `nonce="n"`,
		"latin1":        `nonce="n",algorithm=md5-sess,charset=iso-8859-1`,
		"qop auth-conf": `nonce="n",algorithm=md5-sess,qop="auth-conf"`,
		"two realms":    `realm="a,b",nonce="n",algorithm=md5-sess`,
		"malformed":     `nonce="n`,
		"empty":         ``,
	} {
		_, _, err := (&digestmd5.Client{Username: "u", Password: "p"}).NewExchange().Step([]byte(ch))
		require.ErrorIs(t, err, digestmd5.ErrChallenge, name)
	}
	_, _, err := (&digestmd5.Client{Rand: iotest.ErrReader(errors.New("boom"))}).NewExchange().Step([]byte(`nonce="n",algorithm=md5-sess`))
	require.ErrorContains(t, err, "boom")
	_, _, err = (&digestmd5.Client{}).NewExchange().Step([]byte(`nonce="n",algorithm=md5-sess,qop="auth-int,auth"`))
	require.NoError(t, err)
}

// TestClientChecksProof: a server that does not know the password cannot
// forge rspauth.
func TestClientChecksProof(t *testing.T) {
	for _, final := range []string{"", "rspauth=00000000000000000000000000000000", "rspauth", `rspauth="x`} {
		x := (&digestmd5.Client{Username: "bob", Password: "bobsecret"}).NewExchange()
		_, _, err := x.Step([]byte(`realm="zk-sasl-md5",nonce="n",charset=utf-8,algorithm=md5-sess`))
		require.NoError(t, err)
		_, done, err := x.Step([]byte(final))
		require.ErrorIs(t, err, digestmd5.ErrServerProof, final)
		require.False(t, done)
		_, _, err = x.Step([]byte(final))
		require.ErrorIs(t, err, digestmd5.ErrOutOfTurn)
	}
}
