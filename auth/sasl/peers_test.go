package sasl

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testlog"
)

// lineProc is a child process that answers each command line with one
// line (the testdata programs).
type lineProc struct {
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *testlog.Buffer
}

func startProc(t *testing.T, name string, args ...string) *lineProc {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p := &lineProc{in: in, out: bufio.NewScanner(out), stderr: &testlog.Buffer{}}
	p.out.Buffer(make([]byte, 64<<10), 1<<20)
	cmd.Stderr = p.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait() // exits at end of input
	})
	return p
}

func (p *lineProc) call(t testing.TB, line string) string {
	t.Helper()
	_, err := io.WriteString(p.in, line+"\n")
	require.NoError(t, err, "stderr: %s", p.stderr)
	require.True(t, p.out.Scan(), "no answer to %.40q; stderr: %s", line, p.stderr)
	return p.out.Text()
}

func hexs(s string) string { return hex.EncodeToString([]byte(s)) }

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// needJava skips unless a Java 17 or later is on PATH (the testdata
// programs run as single-file sources and use java.util.HexFormat).
func needJava(t *testing.T) string {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skipf("java not installed: %v", err)
	}
	out, err := exec.Command(java, "-version").CombinedOutput()
	m := regexp.MustCompile(`version "(\d+)`).FindSubmatch(out)
	if err != nil || m == nil {
		t.Skipf("java -version failed: %v: %s", err, out)
	}
	if v, _ := strconv.Atoi(string(m[1])); v < 17 {
		t.Skipf("java %d is too old: the interop tests need 17 or later", v)
	}
	return java
}

// zkClassPath is ZooKeeper's jar and slf4j, so the JDK server runs with
// ZooKeeper's own callback handler; "" when they are not installed (set
// ZK_CLASSPATH to point elsewhere).
func zkClassPath() string {
	if cp := os.Getenv("ZK_CLASSPATH"); cp != "" {
		return cp
	}
	jars := []string{"/usr/share/java/zookeeper.jar", "/usr/share/java/slf4j-api.jar"}
	for _, j := range jars {
		if _, err := os.Stat(j); err != nil {
			return ""
		}
	}
	return strings.Join(jars, string(filepath.ListSeparator))
}

// peerUsers are the users of the interop tests.
var peerUsers = map[string]string{
	"bob":    "bobsecret",
	"jürgen": "pässword",
	"zoë":    "пароль",
	"super":  "adminsecret",
}

func peerServer() *DigestMD5 { return &DigestMD5{Users: peerUsers} }

// jdkServer runs testdata/DigestServer.java: the JDK's DigestMD5Server as
// ZooKeeper creates it.
type jdkServer struct {
	p       *lineProc
	handler string
}

func startJDKServer(t *testing.T, shared bool, users map[string]string) *jdkServer {
	t.Helper()
	args := []string{}
	if cp := zkClassPath(); cp != "" {
		args = append(args, "-cp", cp)
	}
	mode := "fresh"
	if shared {
		mode = "shared"
	}
	args = append(args, filepath.Join("testdata", "DigestServer.java"), mode)
	for u, pw := range users {
		args = append(args, hexs(u)+"="+hexs(pw))
	}
	j := &jdkServer{p: startProc(t, needJava(t), args...)}
	j.handler = strings.TrimPrefix(j.NewServer(t).(*jdkSession).ready, "READY ")
	t.Logf("JDK server callback handler: %s", j.handler)
	return j
}

func (j *jdkServer) NewServer(t testing.TB) Server {
	ready := j.p.call(t, "NEW")
	require.True(t, strings.HasPrefix(ready, "READY "), ready)
	return &jdkSession{t: t, p: j.p, ready: ready}
}

type jdkSession struct {
	t      testing.TB
	p      *lineProc
	ready  string
	authID string
}

func (s *jdkSession) Mechanism() string { return MechanismDigestMD5 }

func (s *jdkSession) AuthorizationID() string { return s.authID }

func (s *jdkSession) Step(resp []byte) ([]byte, bool, error) {
	ans := s.p.call(s.t, "S "+hex.EncodeToString(resp))
	f := strings.Split(ans, " ")
	switch f[0] {
	case "C":
		return unhex(s.t, f[1]), false, nil
	case "DONE":
		s.authID = string(unhex(s.t, f[2]))
		return unhex(s.t, f[1]), true, nil
	}
	return nil, false, fmt.Errorf("%w: jdk: %s", ErrAuthFailed, ans)
}

// outcome is how an exchange between a client process and a server ended.
type outcome struct {
	serverErr error  // the server refused the client
	clientErr string // the client refused the server
	authID    string // the server's authorization id on success
}

func (o outcome) ok() bool { return o.serverErr == nil && o.clientErr == "" }

// runClient relays one exchange between a client process and a server.
func runClient(t testing.TB, c *lineProc, s Server, user, pw string, authzid *string) outcome {
	t.Helper()
	z := "-"
	if authzid != nil {
		z = hexs(*authzid)
	}
	ans := c.call(t, "NEW "+hexs(user)+" "+hexs(pw)+" "+z)
	for {
		f := strings.SplitN(ans, " ", 2)
		if f[0] != "R" {
			return outcome{clientErr: ans}
		}
		ch, done, err := s.Step(unhex(t, f[1]))
		if err != nil {
			return outcome{serverErr: err}
		}
		ans = c.call(t, "C "+hex.EncodeToString(ch))
		if done {
			if ans != "OK" {
				return outcome{clientErr: ans}
			}
			return outcome{authID: s.AuthorizationID()}
		}
	}
}
