package sasl

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

func testServer() *DigestMD5 {
	return &DigestMD5{Users: map[string]string{
		"bob":    "bobsecret",
		"super":  "adminsecret",
		"jürgen": "pässword", // every character fits ISO-8859-1
		"zoë":    "пароль",   // the password does not
		"":       "empty",
	}}
}

func TestChallengeShape(t *testing.T) {
	s := testServer().NewServer()
	ch, done, err := s.Step(nil)
	require.NoError(t, err)
	require.False(t, done)
	re := regexp.MustCompile(`^realm="zk-sasl-md5",nonce="[A-Za-z0-9+/]{40}",charset=utf-8,algorithm=md5-sess$`)
	require.Regexp(t, re, string(ch))
	require.Empty(t, s.AuthorizationID())
}

func TestChallengeNoncesDiffer(t *testing.T) {
	d := testServer()
	a, _, err := d.NewServer().Step(nil)
	require.NoError(t, err)
	b, _, err := d.NewServer().Step(nil)
	require.NoError(t, err)
	require.NotEqual(t, a, b)
}

func TestChallengeCustomNames(t *testing.T) {
	d := &DigestMD5{
		Users:      map[string]string{"u": "p"},
		Realm:      `my "realm"`,
		Protocol:   "zk",
		ServerName: "host.example",
		Rand:       zeros{},
	}
	s := d.NewServer()
	ch, _, err := s.Step(nil)
	require.NoError(t, err)
	require.Equal(t, `realm="my \"realm\"",nonce="`+strings.Repeat("A", 40)+`",charset=utf-8,algorithm=md5-sess`, string(ch))
	_, err = exchange(t, d, testClient{user: "u", pass: "p", uri: "zk/host.example"})
	require.NoError(t, err)
	_, err = exchange(t, d, testClient{user: "u", pass: "p"})
	require.ErrorIs(t, err, ErrAuthFailed)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestNonceSourceFails(t *testing.T) {
	d := &DigestMD5{Rand: iotest.ErrReader(errors.New("no entropy"))}
	s := d.NewServer()
	_, _, err := s.Step(nil)
	require.ErrorIs(t, err, ErrNonce)
	_, _, err = s.Step(nil)
	require.ErrorIs(t, err, ErrAuthFailed)
}

// successCases are responses the server accepts.
var successCases = map[string]testClient{
	"plain":             {user: "bob", pass: "bobsecret"},
	"qop auth":          {user: "bob", pass: "bobsecret", qop: "auth"},
	"no nc":             {user: "bob", pass: "bobsecret", nc: "-"},
	"no charset":        {user: "bob", pass: "bobsecret", noCharset: true},
	"no charset latin1": {user: "jürgen", pass: "pässword", noCharset: true}, // hashed as ISO-8859-1 all the same
	"uri in caps":       {user: "bob", pass: "bobsecret", uri: "ZooKeeper/ZK-SASL-MD5"},
	"empty cnonce":      {user: "bob", pass: "bobsecret", cnonce: "-"},
	"latin1 password":   {user: "jürgen", pass: "pässword"},
	"utf8 password":     {user: "zoë", pass: "пароль"},
	"unknown ignored":   {user: "bob", pass: "bobsecret", extra: `,x-foo="1",x-foo=2,cipher=rc4`},
	"authzid as user":   {user: "bob", pass: "bobsecret", authzid: strp("bob")},
	"nonce-count":       {user: "bob", pass: "bobsecret", nc: "-", extra: ",nonce-count=1"},
	"white space":       {user: "bob", pass: "bobsecret", mutate: spaceOut},
	"upper-case names":  {user: "bob", pass: "bobsecret", mutate: upperNames},
}

func TestSuccess(t *testing.T) {
	for name, c := range successCases {
		t.Run(name, func(t *testing.T) {
			s, err := exchange(t, testServer(), c)
			require.NoError(t, err)
			require.Equal(t, c.user, s.AuthorizationID())
			_, _, err = s.Step(nil)
			require.ErrorIs(t, err, ErrAuthFailed, "a step after success")
			require.Equal(t, c.user, s.AuthorizationID())
		})
	}
}

func spaceOut(s string) string {
	return " \t\r\n" + strings.ReplaceAll(strings.ReplaceAll(s, ",", " ,\r\n ,, "), "=", " = ") + " \n"
}

func upperNames(s string) string {
	for _, k := range []string{"username=", "realm=", "nonce=", "cnonce=", "digest-uri=", "response="} {
		s = strings.Replace(s, k, strings.ToUpper(k), 1)
	}
	return s
}

// TestAuthzidIgnored: ZooKeeper authorizes every authenticated user as
// itself, whatever authzid the client asked for; the authzid still enters
// the digest.
func TestAuthzidIgnored(t *testing.T) {
	s, err := exchange(t, testServer(), testClient{user: "bob", pass: "bobsecret", authzid: strp("super")})
	require.NoError(t, err)
	require.Equal(t, "bob", s.AuthorizationID())
	_, err = exchange(t, testServer(), testClient{user: "bob", pass: "bobsecret", authzid: strp("super"),
		mutate: func(s string) string { return strings.Replace(s, `,authzid="super"`, "", 1) }})
	require.ErrorIs(t, err, ErrAuthFailed)
}

// with is bob's good response changed by f.
func with(f func(*testClient)) testClient {
	c := testClient{user: "bob", pass: "bobsecret"}
	f(&c)
	return c
}

// failureCases are responses the server refuses, with the reason.
var failureCases = map[string]struct {
	c   testClient
	why string
}{
	"wrong password":   {with(func(c *testClient) { c.pass = "bobsecret2" }), "wrong response"},
	"unknown user":     {with(func(c *testClient) { c.user = "alice" }), "unknown user"},
	"other user's pw":  {with(func(c *testClient) { c.user = "super" }), "wrong response"},
	"user case":        {with(func(c *testClient) { c.user = "Bob" }), "unknown user"},
	"bad digest-uri":   {with(func(c *testClient) { c.uri = "zookeeper/localhost" }), "wrong digest-uri"},
	"bad serv-type":    {with(func(c *testClient) { c.uri = "ldap/zk-sasl-md5" }), "wrong digest-uri"},
	"no digest-uri":    {with(func(c *testClient) { c.mutate = drop(`digest-uri="zookeeper/zk-sasl-md5",`) }), "wrong digest-uri"},
	"wrong realm":      {with(func(c *testClient) { c.realm = strp("other") }), "wrong realm"},
	"realm case":       {with(func(c *testClient) { c.realm = strp("ZK-SASL-MD5") }), "wrong realm"},
	"no realm":         {with(func(c *testClient) { c.noRealm = true; c.realm = strp("") }), "wrong realm"},
	"qop auth-int":     {with(func(c *testClient) { c.qop = "auth-int" }), "qop \"auth-int\" not offered"},
	"qop auth-conf":    {with(func(c *testClient) { c.qop = "auth-conf" }), "not offered"},
	"qop AUTH":         {with(func(c *testClient) { c.qop = "AUTH" }), "not offered"},
	"nc 2":             {with(func(c *testClient) { c.nc = "00000002" }), "nonce count"},
	"nc garbage":       {with(func(c *testClient) { c.nc = "zz" }), "nonce count"},
	"nonce-count 2":    {with(func(c *testClient) { c.extra = ",nonce-count=2" }), "nonce count"},
	"nc twice":         {with(func(c *testClient) { c.extra = ",nc=00000001" }), "malformed directive list"},
	"charset latin1":   {with(func(c *testClient) { c.noCharset = true; c.extra = ",charset=iso-8859-1" }), "charset"},
	"charset UTF-8":    {with(func(c *testClient) { c.noCharset = true; c.extra = ",charset=UTF-8" }), "charset"},
	"maxbuf garbage":   {with(func(c *testClient) { c.mutate = swap("maxbuf=65536", "maxbuf=lots") }), "malformed maxbuf"},
	"MAXBUF twice":     {with(func(c *testClient) { c.extra = ",MAXBUF=1" }), "malformed directive list"},
	"maxbuf too big":   {with(func(c *testClient) { c.mutate = swap("maxbuf=65536", "maxbuf=2147483648") }), "malformed maxbuf"},
	"auth-param twice": {with(func(c *testClient) { c.extra = ",auth-param=1,auth-param=2" }), "malformed directive list"},
	"no cnonce":        {with(func(c *testClient) { c.mutate = drop(`cnonce="c1c2c3c4",`) }), "missing cnonce"},
	"no nonce":         {with(func(c *testClient) { c.mutate = dropRe(`nonce="[^"]*",`) }), "wrong nonce"},
	"wrong nonce":      {with(func(c *testClient) { c.mutate = swapRe(`,nonce="[^"]*"`, `,nonce="AAAA"`) }), "wrong nonce"},
	"no response":      {with(func(c *testClient) { c.mutate = dropRe(`,response=[0-9a-f]*`) }), "missing response"},
	"response in caps": {with(func(c *testClient) { c.mutate = upperRe(`response=[0-9a-f]*`) }), "wrong response"},
	"no username":      {with(func(c *testClient) { c.mutate = drop(`username="bob",`) }), "missing or malformed username"},
	"utf8-hashed":      {testClient{user: "jürgen", pass: "pässword", utf8Only: true}, "wrong response"},
	"latin1 username":  {testClient{user: "jürgen", pass: "pässword", mutate: swap("jürgen", "j\xfcrgen")}, "missing or malformed username"},
	"authzid added":    {with(func(c *testClient) { c.extra = `,authzid="super"` }), "wrong response"},
}

func TestFailures(t *testing.T) {
	for name, tc := range failureCases {
		t.Run(name, func(t *testing.T) {
			s, err := exchange(t, testServer(), tc.c)
			require.ErrorIs(t, err, ErrAuthFailed)
			require.ErrorContains(t, err, tc.why)
			_, _, err = s.Step(nil)
			require.ErrorIs(t, err, ErrAuthFailed, "a step after failure")
		})
	}
}

func drop(sub string) func(string) string { return swap(sub, "") }

func swap(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

func dropRe(re string) func(string) string { return swapRe(re, "") }

func swapRe(re, new string) func(string) string {
	return func(s string) string { return regexp.MustCompile(re).ReplaceAllLiteralString(s, new) }
}

func upperRe(re string) func(string) string {
	return func(s string) string { return regexp.MustCompile(re).ReplaceAllStringFunc(s, strings.ToUpper) }
}

func TestReplayedStep(t *testing.T) {
	d := testServer()
	s := d.NewServer()
	ch, _, err := s.Step(nil)
	require.NoError(t, err)
	resp, _ := testClient{user: "bob", pass: "bobsecret"}.respond(t, ch)
	_, done, err := s.Step(resp)
	require.NoError(t, err)
	require.True(t, done)
	_, _, err = s.Step(resp)
	require.ErrorIs(t, err, ErrAuthFailed, "the same response twice")

	// The response is bound to the first server's nonce.
	s2 := d.NewServer()
	_, _, err = s2.Step(nil)
	require.NoError(t, err)
	_, _, err = s2.Step(resp)
	require.ErrorIs(t, err, ErrAuthFailed, "a response replayed on another exchange")
	require.Empty(t, s2.AuthorizationID())
}

func TestFirstTokenIgnored(t *testing.T) {
	s := testServer().NewServer()
	ch, done, err := s.Step([]byte("username=bob"))
	require.NoError(t, err)
	require.False(t, done)
	resp, _ := testClient{user: "bob", pass: "bobsecret"}.respond(t, ch)
	_, done, err = s.Step(resp)
	require.NoError(t, err)
	require.True(t, done)
}

func TestTokenSizeCap(t *testing.T) {
	s := testServer().NewServer()
	_, _, err := s.Step(make([]byte, MaxTokenSize+1))
	require.ErrorIs(t, err, ErrAuthFailed)

	// MaxTokenSize itself is allowed: pad a good response with white space.
	s = testServer().NewServer()
	ch, _, err := s.Step(nil)
	require.NoError(t, err)
	resp, _ := testClient{user: "bob", pass: "bobsecret"}.respond(t, ch)
	pad := append(resp, bytes.Repeat([]byte{' '}, MaxTokenSize-len(resp))...)
	_, done, err := s.Step(pad)
	require.NoError(t, err)
	require.True(t, done)

	s = testServer().NewServer()
	ch, _, err = s.Step(nil)
	require.NoError(t, err)
	resp, _ = testClient{user: "bob", pass: "bobsecret"}.respond(t, ch)
	_, _, err = s.Step(append(resp, bytes.Repeat([]byte{' '}, MaxTokenSize+1-len(resp))...))
	require.ErrorIs(t, err, ErrAuthFailed)
}
