package main

import (
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
