package sasl

import (
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testkdc"
)

const testRealm = "ZKRAFT.TEST"

// gssRealm is a test KDC with the principals of the GSSAPI interop tests.
type gssRealm struct {
	kdc          *testkdc.KDC
	serviceKT    string // zookeeper/localhost
	staleKT      string // zookeeper/localhost's keys before a re-key
	otherKT      string // zookeeper/otherhost
	clientKT     string // zkclient
	hostClientKT string // zkclient/client.example
}

func startGSSRealm(t *testing.T) *gssRealm {
	t.Helper()
	if ok, why := testkdc.Available(); !ok {
		t.Skip(why)
	}
	k := testkdc.Start(t, testRealm)
	r := &gssRealm{kdc: k}
	r.staleKT = k.AddPrincipal(t, "zookeeper/localhost")
	r.serviceKT = k.Keytab(t, "zookeeper/localhost") // re-keys: staleKT no longer matches
	r.otherKT = k.AddPrincipal(t, "zookeeper/otherhost")
	r.clientKT = k.AddPrincipal(t, "zkclient")
	r.hostClientKT = k.AddPrincipal(t, "zkclient/client.example")
	return r
}

func loadKeytab(t *testing.T, path string) *keytab.Keytab {
	t.Helper()
	kt, err := keytab.Load(path)
	require.NoError(t, err)
	return kt
}

// startGSSClient runs testdata/GssClient.java against the realm.
func startGSSClient(t *testing.T, r *gssRealm) *lineProc {
	t.Helper()
	java := needJava(t)
	return startProc(t, java, "-Djava.security.krb5.conf="+r.kdc.Krb5Conf,
		"-Dsun.security.krb5.disableReferrals=true", filepath.Join("testdata", "GssClient.java"))
}

// gssLogin is one login by the JDK client.
type gssLogin struct {
	principal, keytab, host string
	mutual                  bool
	authzid                 *string
}

// runGSSClient relays one exchange between the JDK client and s.
func runGSSClient(t *testing.T, c *lineProc, s Server, l gssLogin) outcome {
	t.Helper()
	o, _ := runGSSClientTokens(t, c, s, l)
	return o
}

// runGSSClientTokens is runGSSClient that also returns the server's
// challenges.
func runGSSClientTokens(t *testing.T, c *lineProc, s Server, l gssLogin) (o outcome, challenges [][]byte) {
	t.Helper()
	z, m := "-", "0"
	if l.authzid != nil {
		z = hexs(*l.authzid)
	}
	if l.mutual {
		m = "1"
	}
	ans := c.call(t, strings.Join([]string{"NEW", hexs(l.principal), hexs(l.keytab), hexs(l.host), m, z}, " "))
	for steps := 0; steps < 10; steps++ {
		f := strings.SplitN(ans, " ", 2)
		if f[0] != "R" {
			return outcome{clientErr: ans}, challenges
		}
		ch, done, err := s.Step(unhex(t, f[1]))
		if err != nil {
			// The server drops the connection; the client must not
			// think it is authenticated.
			require.Equal(t, "INCOMPLETE", c.call(t, "STATE"))
			return outcome{serverErr: err}, challenges
		}
		challenges = append(challenges, ch)
		ans = c.call(t, "C "+hex.EncodeToString(ch))
		if done {
			if ans != "OK" {
				return outcome{clientErr: ans}, challenges
			}
			return outcome{authID: s.AuthorizationID()}, challenges
		}
	}
	t.Fatal("exchange did not end")
	return outcome{}, nil
}

// TestJDKGSSAPIClient logs in with the JDK's GSSAPI SASL client, set up as
// ZooKeeper's Java client sets it up, against a real MIT KDC.
func TestJDKGSSAPIClient(t *testing.T) {
	r := startGSSRealm(t)
	client := startGSSClient(t, r)
	svc := loadKeytab(t, r.serviceKT)
	principal := "zookeeper/localhost@" + testRealm
	for _, mutual := range []bool{false, true} {
		name := "zookeeper-default"
		if mutual {
			name = "mutual"
		}
		t.Run(name, func(t *testing.T) {
			login := gssLogin{principal: "zkclient@" + testRealm, keytab: r.clientKT, host: "localhost", mutual: mutual}

			g := &GSSAPI{Keytab: svc, Principal: principal}
			s := g.NewServer()
			require.Equal(t, "GSSAPI", s.Mechanism())
			o, chs := runGSSClientTokens(t, client, s, login)
			require.True(t, o.ok(), "%+v", o)
			if mutual {
				// AP-REP, then the security-layer offer, then done.
				require.Len(t, chs, 3)
				id, _, err := parseGSSToken(chs[0])
				require.NoError(t, err)
				require.Equal(t, tokAPRep, id)
				require.Equal(t, tokWrap[:], chs[1][:2])
			} else {
				// ZooKeeper's client asks for no mutual
				// authentication: the offer comes at once.
				require.Len(t, chs, 2)
				require.Equal(t, tokWrap[:], chs[0][:2])
			}
			require.Empty(t, chs[len(chs)-1])
			require.Equal(t, "zkclient@"+testRealm, o.authID)
			_, _, err := s.Step(nil)
			require.ErrorIs(t, err, ErrAuthFailed, "a step after done")

			g = &GSSAPI{Keytab: svc, Principal: principal, RemoveRealmFromPrincipal: true}
			o = runGSSClient(t, client, g.NewServer(), login)
			require.True(t, o.ok(), "%+v", o)
			require.Equal(t, "zkclient", o.authID)

			// A service principal given without realm.
			g = &GSSAPI{Keytab: svc, Principal: "zookeeper/localhost"}
			o = runGSSClient(t, client, g.NewServer(), login)
			require.True(t, o.ok(), "%+v", o)

			hostLogin := login
			hostLogin.principal = "zkclient/client.example@" + testRealm
			hostLogin.keytab = r.hostClientKT
			for _, c := range []struct {
				host, realm bool
				want        string
			}{
				{false, false, "zkclient/client.example@" + testRealm},
				{true, false, "zkclient@" + testRealm},
				{false, true, "zkclient/client.example"},
				{true, true, "zkclient"},
			} {
				g = &GSSAPI{Keytab: svc, Principal: principal, RemoveHostFromPrincipal: c.host, RemoveRealmFromPrincipal: c.realm}
				o = runGSSClient(t, client, g.NewServer(), hostLogin)
				require.True(t, o.ok(), "%+v", o)
				require.Equal(t, c.want, o.authID)
			}

			// The authzid the client asks for does not change the id.
			withAuthz := login
			withAuthz.authzid = strp("super")
			g = &GSSAPI{Keytab: svc, Principal: principal}
			o = runGSSClient(t, client, g.NewServer(), withAuthz)
			require.True(t, o.ok(), "%+v", o)
			require.Equal(t, "zkclient@"+testRealm, o.authID)

			// A ticket for another service, with a server that has
			// both keys but is zookeeper/localhost.
			both := loadKeytab(t, r.serviceKT)
			both.Entries = append(both.Entries, loadKeytab(t, r.otherKT).Entries...)
			other := login
			other.host = "otherhost"
			g = &GSSAPI{Keytab: both, Principal: principal}
			o = runGSSClient(t, client, g.NewServer(), other)
			require.ErrorIs(t, o.serverErr, ErrAuthFailed)
			// ... and with the keytab of zookeeper/localhost only and
			// no principal configured.
			g = &GSSAPI{Keytab: svc}
			o = runGSSClient(t, client, g.NewServer(), other)
			require.ErrorIs(t, o.serverErr, ErrAuthFailed)

			// The server's keytab holds keys the KDC no longer uses.
			g = &GSSAPI{Keytab: loadKeytab(t, r.staleKT), Principal: principal}
			o = runGSSClient(t, client, g.NewServer(), login)
			require.ErrorIs(t, o.serverErr, ErrAuthFailed)

			// The keytab of another principal.
			g = &GSSAPI{Keytab: loadKeytab(t, r.otherKT), Principal: principal}
			o = runGSSClient(t, client, g.NewServer(), login)
			require.ErrorIs(t, o.serverErr, ErrAuthFailed)
		})
	}
}

// jdkGSSServer runs testdata/GssServer.java: the JDK's GSSAPI server as
// ZooKeeper creates it, with ZooKeeper's callback handler.
type jdkGSSServer struct{ p *lineProc }

func startJDKGSSServer(t *testing.T, r *gssRealm) *jdkGSSServer {
	t.Helper()
	cp := zkClassPath()
	if cp == "" {
		t.Skip("ZooKeeper's jar is not installed (libzookeeper-java); set ZK_CLASSPATH")
	}
	return &jdkGSSServer{p: startProc(t, needJava(t), "-cp", cp, "-Djava.security.krb5.conf="+r.kdc.Krb5Conf,
		"-Dsun.security.krb5.disableReferrals=true", filepath.Join("testdata", "GssServer.java"))}
}

func (j *jdkGSSServer) NewServer(t *testing.T, principal, keytab string, removeHost, removeRealm bool) Server {
	t.Helper()
	b := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	ready := j.p.call(t, strings.Join([]string{"NEW", hexs(principal), hexs(keytab), b(removeHost), b(removeRealm)}, " "))
	require.Equal(t, "READY org.apache.zookeeper.server.auth.SaslServerCallbackHandler", ready)
	return &jdkSession{t: t, p: j.p, ready: ready}
}

// TestJDKGSSAPIServerAgrees runs the same JDK client logins against this
// package's server and against the JDK's server with ZooKeeper's callback
// handler: both must accept or refuse, and agree on the authorization id.
func TestJDKGSSAPIServerAgrees(t *testing.T) {
	r := startGSSRealm(t)
	client := startGSSClient(t, r)
	jdk := startJDKGSSServer(t, r)
	principal := "zookeeper/localhost@" + testRealm
	svc := loadKeytab(t, r.serviceKT)
	user := gssLogin{principal: "zkclient@" + testRealm, keytab: r.clientKT, host: "localhost"}
	hostUser := gssLogin{principal: "zkclient/client.example@" + testRealm, keytab: r.hostClientKT, host: "localhost"}
	for name, c := range map[string]struct {
		login       gssLogin
		host, realm bool
		keytab      string
		want        string // "" when refused
	}{
		"default":             {user, false, false, r.serviceKT, "zkclient@" + testRealm},
		"remove realm":        {user, false, true, r.serviceKT, "zkclient"},
		"remove host":         {user, true, false, r.serviceKT, "zkclient@" + testRealm},
		"host principal":      {hostUser, false, false, r.serviceKT, "zkclient/client.example@" + testRealm},
		"host removed":        {hostUser, true, false, r.serviceKT, "zkclient@" + testRealm},
		"host, realm removed": {hostUser, true, true, r.serviceKT, "zkclient"},
		"authzid super":       {gssLogin{user.principal, user.keytab, "localhost", false, strp("super")}, false, false, r.serviceKT, "zkclient@" + testRealm},
		"mutual":              {gssLogin{user.principal, user.keytab, "localhost", true, nil}, false, true, r.serviceKT, "zkclient"},
		"stale keytab":        {user, false, false, r.staleKT, ""},
		"other service":       {gssLogin{user.principal, user.keytab, "otherhost", false, nil}, false, false, r.serviceKT, ""},
	} {
		t.Run(name, func(t *testing.T) {
			kt := svc
			if c.keytab != r.serviceKT {
				kt = loadKeytab(t, c.keytab)
			}
			for _, srv := range []struct {
				name string
				s    Server
			}{
				{"go", (&GSSAPI{Keytab: kt, Principal: principal, RemoveHostFromPrincipal: c.host, RemoveRealmFromPrincipal: c.realm}).NewServer()},
				{"jdk", jdk.NewServer(t, principal, c.keytab, c.host, c.realm)},
			} {
				o := runGSSClient(t, client, srv.s, c.login)
				if c.want == "" {
					require.ErrorIs(t, o.serverErr, ErrAuthFailed, srv.name)
					continue
				}
				require.True(t, o.ok(), "%s: %+v", srv.name, o)
				require.Equal(t, c.want, o.authID, srv.name)
			}
		})
	}
}
