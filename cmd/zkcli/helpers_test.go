package main

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/server"
)

// startZkraft starts an in-process zkraft server on 127.0.0.1, port 0,
// with TTL nodes enabled (as realzk's ZooKeeper has them), stopped when
// the test ends.
func startZkraft(t *testing.T) string {
	t.Helper()
	s := integration.StartServer(t, integration.WithConfig(func(c *server.Config) {
		c.ExtendedTypesEnabled = true
	}))
	return s.Addr()
}

// zkcli runs one zkcli invocation against addr and returns what it wrote
// (standard output and standard error, in the order written) and its exit
// status.
func zkcli(t *testing.T, addr string, args ...string) (string, int) {
	t.Helper()
	var b bytes.Buffer
	code := run(append([]string{"-server", addr, "-timeout", "10s"}, args...), &b, &b)
	return b.String(), code
}

// zkcliSplit runs zkcli and returns standard output and standard error
// apart.
func zkcliSplit(t *testing.T, addr string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(append([]string{"-server", addr, "-timeout", "10s"}, args...), &o, &e)
	return o.String(), e.String(), code
}

var (
	reZxid = regexp.MustCompile(`(?m)^(cZxid|mZxid|pZxid) = 0x[0-9a-f]+$`)
	reTime = regexp.MustCompile(`(?m)^(ctime|mtime) = .*$`)
)

// normalise hides what differs between runs and servers: zxids and times
// in stat output, and the test's root path.
func normalise(s, root string) string {
	s = reZxid.ReplaceAllString(s, "$1 = 0xZXID")
	s = reTime.ReplaceAllString(s, "$1 = TIME")
	return strings.ReplaceAll(s, root, "/ROOT")
}

// digestID is the digest ACL id of user:password.
func digestID(user, password string) string {
	h := sha1.Sum([]byte(user + ":" + password))
	return user + ":" + base64.StdEncoding.EncodeToString(h[:])
}
