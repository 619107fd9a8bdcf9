package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// zkConn is zkcli's connection: go-zookeeper's, with the connect string's
// chroot applied as Java's client applies it (go-zookeeper has none).
// Every path a request sends is the client's path under the chroot, and
// every path the server returns (a created node's, multi's results) is
// stripped of it; watch events are stripped where the session prints them
// (session.go, watchcmd.go), and the tap's requests take serverPath
// (watches.go, tapreads.go). Methods without a path pass through.
// Without a chroot paths stay as they are.
type zkConn struct {
	*zk.Conn
	chroot string    // "" for none
	hosts  *hostList // the addresses go-zookeeper tries in turn
}

// serverPath is the server's path for the client's path p (Java's
// prependChroot): "/" is the chroot itself.
func (z *zkConn) serverPath(p string) string {
	if z.chroot == "" {
		return p
	}
	if p == "/" {
		return z.chroot
	}
	return z.chroot + p
}

// clientPath is the client's path for the server's path p: the chroot is
// "/", a path under it loses it, and any other path (one outside the
// chroot, such as /zookeeper/config) stays as it is.
func (z *zkConn) clientPath(p string) string {
	switch {
	case z.chroot == "":
		return p
	case p == z.chroot:
		return "/"
	case strings.HasPrefix(p, z.chroot+"/"):
		return p[len(z.chroot):]
	}
	return p
}

func (z *zkConn) Create(path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	p, err := z.Conn.Create(z.serverPath(path), data, flags, acl)
	return z.clientPath(p), err
}

func (z *zkConn) CreateTTL(path string, data []byte, flags int32, acl []zk.ACL, ttl time.Duration) (string, error) {
	p, err := z.Conn.CreateTTL(z.serverPath(path), data, flags, acl, ttl)
	return z.clientPath(p), err
}

func (z *zkConn) CreateContainer(path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	p, err := z.Conn.CreateContainer(z.serverPath(path), data, flags, acl)
	return z.clientPath(p), err
}

func (z *zkConn) CreateProtectedEphemeralSequential(path string, data []byte, acl []zk.ACL) (string, error) {
	p, err := z.Conn.CreateProtectedEphemeralSequential(z.serverPath(path), data, acl)
	return z.clientPath(p), err
}

func (z *zkConn) Get(path string) ([]byte, *zk.Stat, error) {
	return z.Conn.Get(z.serverPath(path))
}

func (z *zkConn) GetW(path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	return z.Conn.GetW(z.serverPath(path))
}

func (z *zkConn) Set(path string, data []byte, version int32) (*zk.Stat, error) {
	return z.Conn.Set(z.serverPath(path), data, version)
}

func (z *zkConn) Delete(path string, version int32) error {
	return z.Conn.Delete(z.serverPath(path), version)
}

func (z *zkConn) Exists(path string) (bool, *zk.Stat, error) {
	return z.Conn.Exists(z.serverPath(path))
}

func (z *zkConn) ExistsW(path string) (bool, *zk.Stat, <-chan zk.Event, error) {
	return z.Conn.ExistsW(z.serverPath(path))
}

func (z *zkConn) Children(path string) ([]string, *zk.Stat, error) {
	return z.Conn.Children(z.serverPath(path))
}

func (z *zkConn) ChildrenW(path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	return z.Conn.ChildrenW(z.serverPath(path))
}

func (z *zkConn) GetACL(path string) ([]zk.ACL, *zk.Stat, error) {
	return z.Conn.GetACL(z.serverPath(path))
}

func (z *zkConn) SetACL(path string, acl []zk.ACL, version int32) (*zk.Stat, error) {
	return z.Conn.SetACL(z.serverPath(path), acl, version)
}

func (z *zkConn) Sync(path string) (string, error) {
	p, err := z.Conn.Sync(z.serverPath(path))
	return z.clientPath(p), err
}

// Multi sends copies of ops with their paths under the chroot, and strips
// the chroot from the created paths of the results.
func (z *zkConn) Multi(ops ...interface{}) ([]zk.MultiResponse, error) {
	if z.chroot != "" {
		moved := make([]interface{}, len(ops))
		for i, op := range ops {
			switch r := op.(type) {
			case *zk.CreateRequest:
				c := *r
				c.Path = z.serverPath(r.Path)
				moved[i] = &c
			case *zk.DeleteRequest:
				c := *r
				c.Path = z.serverPath(r.Path)
				moved[i] = &c
			case *zk.SetDataRequest:
				c := *r
				c.Path = z.serverPath(r.Path)
				moved[i] = &c
			case *zk.CheckVersionRequest:
				c := *r
				c.Path = z.serverPath(r.Path)
				moved[i] = &c
			default:
				moved[i] = op // go-zookeeper refuses it
			}
		}
		ops = moved
	}
	res, err := z.Conn.Multi(ops...)
	for i := range res {
		if res[i].String != "" {
			res[i].String = z.clientPath(res[i].String)
		}
	}
	return res, err
}

// chrootExport is the writer an export goes through under a chroot:
// treejson.Export reads go-zookeeper's connection, so its document names
// the server's paths; this writer strips the chroot from the header's
// root and each node's path, so that the export holds the client's paths
// as every other command shows them. Export writes the header on the
// first line and one node per line, each starting with its path; the
// writer rewrites whole lines and passes everything else on as it is.
type chrootExport struct {
	w       io.Writer
	chroot  string
	partial []byte // the line written so far
	err     error
}

// Write buffers p up to each line's end and writes the line rewritten.
func (e *chrootExport) Write(p []byte) (int, error) {
	n := len(p)
	for e.err == nil && len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			e.partial = append(e.partial, p...)
			break
		}
		e.partial = append(e.partial, p[:i+1]...)
		p = p[i+1:]
		_, e.err = e.w.Write(e.rewrite(e.partial))
		e.partial = e.partial[:0]
	}
	return n, e.err
}

// flush writes what follows the last line's end (Export ends with one).
func (e *chrootExport) flush() error {
	if e.err == nil && len(e.partial) > 0 {
		_, e.err = e.w.Write(e.rewrite(e.partial))
	}
	return e.err
}

// rewrite strips the chroot from the first "root" or "path" field of a
// line, when it holds a path under the chroot.
func (e *chrootExport) rewrite(line []byte) []byte {
	for _, key := range []string{`{"path":"`, `"root":"`} {
		i := bytes.Index(line, []byte(key+e.chroot))
		if i < 0 || (key[0] == '{' && i != 0) {
			continue
		}
		rest := i + len(key) + len(e.chroot)
		switch {
		case rest < len(line) && line[rest] == '"': // the chroot itself: "/"
			return slices.Concat(line[:i+len(key)], []byte("/"), line[rest:])
		case rest < len(line) && line[rest] == '/':
			return slices.Concat(line[:i+len(key)], line[rest:])
		}
	}
	return line
}

// exportRoot reads the "root" of an export's header from the start of br,
// without consuming it ("" when it cannot tell: Import then reports the
// document's fault itself).
func exportRoot(br *bufio.Reader) string {
	head, _ := br.Peek(64 << 10)
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil || tok == "nodes" {
			return ""
		}
		if tok == "root" {
			var root string
			if json.Unmarshal(v, &root) != nil {
				return ""
			}
			return root
		}
	}
	return ""
}
