package sasl

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomResponse writes digest-responses the way many different clients
// might: directive order, name case, white space, separators, quoting and
// escapes vary, optional directives come and go, and now and then a value
// is wrong. The server here and the JDK's must judge each alike.
type randomResponse struct {
	rng  *rand.Rand
	c    testClient
	dirs [][2]string // name, value; a value starting with "=" is sent bare
}

func newRandomResponse(rng *rand.Rand) *randomResponse {
	users := []string{"bob", "jürgen", "zoë", "super", "nobody"}
	r := &randomResponse{rng: rng}
	r.c.user = users[rng.IntN(len(users))]
	r.c.pass = peerUsers[r.c.user]
	if r.odds(10) {
		r.c.pass += "x"
	}
	r.c.uri = r.pick("zookeeper/zk-sasl-md5", "ZOOKEEPER/zk-sasl-md5", "zookeeper/ZK-Sasl-Md5", "zookeeper/zk-sasl-md5.")
	r.c.cnonce = r.pick("OA6MHXh6VqTrRk", "a b,c", `q"uo\te`, "-", "0")
	if r.c.cnonce == "-" {
		r.c.cnonce = ""
	}
	r.c.nc = "00000001"
	switch rng.IntN(4) {
	case 0:
		r.c.authzid = strp(r.c.user)
	case 1:
		r.c.authzid = strp("super")
	}
	return r
}

// odds is true one time in n.
func (r *randomResponse) odds(n int) bool { return r.rng.IntN(n) == 0 }

func (r *randomResponse) pick(choices ...string) string {
	if r.rng.IntN(2) == 0 {
		return choices[0]
	}
	return choices[r.rng.IntN(len(choices))]
}

// build answers a challenge.
func (r *randomResponse) build(t testing.TB, ch []byte) []byte {
	realm, nonce := challengeValues(t, ch)
	r.dirs = nil
	r.add("username", r.c.user)
	r.add("realm", r.pick(realm, realm, "ZK-SASL-MD5"))
	r.add("nonce", nonce)
	r.add("cnonce", r.c.cnonce)
	r.add("digest-uri", r.c.uri)
	r.optional("nc", "="+r.pick("00000001", "1", "+1", "0001"))
	r.optional("qop", "="+r.pick("auth", "auth", "auth-int", "Auth"))
	r.optional("maxbuf", "="+r.pick("65536", "-5", "0", "x", "99999999999"))
	r.optional("charset", "="+r.pick("utf-8", "utf-8", "UTF-8"))
	r.optional("x-unknown", r.pick("1", "a,b"))
	qop := "auth"
	if v, ok := r.value("qop"); ok {
		qop = v
	}
	resp := r.c.digestQop(qop, "AUTHENTICATE", realmOf(r.dirs), nonce)
	if r.odds(20) {
		resp = strings.ToUpper(resp)
	}
	r.add("response", "="+resp)
	if r.c.authzid != nil {
		r.add("authzid", *r.c.authzid)
	}
	r.mess()
	return []byte(r.format())
}

func realmOf(dirs [][2]string) string {
	for _, d := range dirs {
		if d[0] == "realm" {
			return d[1]
		}
	}
	return ""
}

func (r *randomResponse) add(name, val string) { r.dirs = append(r.dirs, [2]string{name, val}) }

func (r *randomResponse) optional(name, val string) {
	if r.rng.IntN(3) > 0 {
		r.add(name, val)
	}
}

func (r *randomResponse) value(name string) (string, bool) {
	for _, d := range r.dirs {
		if d[0] == name {
			return strings.TrimPrefix(d[1], "="), true
		}
	}
	return "", false
}

// mess shuffles the directives and sometimes drops or repeats one.
func (r *randomResponse) mess() {
	r.rng.Shuffle(len(r.dirs), func(i, j int) { r.dirs[i], r.dirs[j] = r.dirs[j], r.dirs[i] })
	if r.odds(15) {
		i := r.rng.IntN(len(r.dirs))
		r.dirs = append(r.dirs[:i], r.dirs[i+1:]...)
	}
	if r.odds(15) {
		d := r.dirs[r.rng.IntN(len(r.dirs))]
		if d[0] != "nc" && d[0] != "x-unknown" { // the JDK ignores both
			r.dirs = append(r.dirs, d)
		}
	}
}

func (r *randomResponse) format() string {
	var b strings.Builder
	b.WriteString(r.pick("", " ", "\r\n\t", ","))
	for i, d := range r.dirs {
		switch {
		case i == 0:
		case r.odds(25):
			// No separator: after a quoted value the JDK refuses; after a
			// bare one the next directive runs into the value.
		default:
			b.WriteString(r.pick(",", ", ", " ,", " ", "\t", ",,", "\r\n,", " , ,\t"))
		}
		b.WriteString(r.nameCase(d[0]))
		b.WriteString(r.pick("=", " =", "= ", "\t=\t"))
		b.WriteString(r.quote(d[1]))
	}
	b.WriteString(r.pick("", " ", ","))
	return b.String()
}

func (r *randomResponse) nameCase(s string) string {
	if r.odds(3) {
		return strings.ToUpper(s[:1]) + s[1:]
	}
	if r.odds(5) {
		return strings.ToUpper(s)
	}
	return s
}

// quote writes a value quoted, with some characters needlessly escaped,
// or bare when it can go bare.
func (r *randomResponse) quote(v string) string {
	bare := strings.HasPrefix(v, "=")
	v = strings.TrimPrefix(v, "=")
	if (bare || r.odds(3)) && v != "" && !strings.ContainsAny(v, " \t\r\n,\"\\") {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '"' || c == '\\' || (c < 0x80 && r.odds(8)) {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	b.WriteByte('"')
	return b.String()
}

// digestQop is digest with the qop the response names.
func (c testClient) digestQop(qop, method, realm, nonce string) string {
	c.qop = qop
	return c.digest(method, realm, nonce)
}

// TestJDKServerRandomResponses sends the same randomly written responses to
// both servers and requires the same verdict and authorization id.
func TestJDKServerRandomResponses(t *testing.T) {
	jdk := startJDKServer(t, false, peerUsers)
	rng := rand.New(rand.NewPCG(2831, 38))
	accepted := 0
	for i := range 400 {
		seed := rng.Uint64()
		verdict := func(s Server) (string, bool) {
			r := newRandomResponse(rand.New(rand.NewPCG(seed, 0)))
			ch, _, err := s.Step(nil)
			require.NoError(t, err)
			resp := r.build(t, ch)
			_, done, err := s.Step(resp)
			return fmt.Sprintf("%q", resp), err == nil && done
		}
		goSrv, jdkSrv := peerServer().NewServer(), jdk.NewServer(t)
		resp, goOK := verdict(goSrv)
		_, jdkOK := verdict(jdkSrv)
		require.Equal(t, jdkOK, goOK, "case %d: %s", i, resp)
		require.Equal(t, jdkSrv.AuthorizationID(), goSrv.AuthorizationID(), "case %d: %s", i, resp)
		if goOK {
			accepted++
		}
	}
	t.Logf("%d of 400 accepted by both", accepted)
	require.Greater(t, accepted, 40, "too few successes to be a test")
}
