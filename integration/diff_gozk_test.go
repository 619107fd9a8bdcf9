package integration

import (
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkraft/zkraft/wire"
)

// gclient is a go-zookeeper/zk connection whose calls are logged.
type gclient struct {
	s       *sc
	name    string
	c       *zk.Conn
	watches []*gwatch
}

// gwatch is a one-shot watch channel of a gclient.
type gwatch struct {
	desc string
	ch   <-chan zk.Event
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}

// zk connects a go-zk client named name (10 s session) and waits for its
// session. The connection is closed when the scenario ends.
func (s *sc) zk(name string) *gclient {
	c, events, err := zk.Connect([]string{s.addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
	if err != nil {
		s.abortf("%s: connect: %v", name, err)
	}
	s.onCleanup(c.Close)
	deadline := time.After(rawTimeout)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				s.logf("%s: connected session=%s", name, s.sid(c.SessionID()))
				// Keep draining session events so go-zk never blocks on them.
				go func() {
					for range events {
					}
				}()
				return &gclient{s: s, name: name, c: c}
			}
		case <-deadline:
			s.abortf("%s: no session within %v (state %v)", name, rawTimeout, c.State())
		}
	}
}

// Close closes the session (closeSession) and logs it.
func (g *gclient) Close() {
	g.c.Close()
	g.s.logf("%s: closed", g.name)
}

var unknownErr = regexp.MustCompile(`unknown error: (-?\d+)`)

// goZKCodes maps go-zk's sentinel errors back to protocol codes.
var goZKCodes = []struct {
	err  error
	code wire.Code
}{
	{zk.ErrAPIError, wire.CodeAPIError}, {zk.ErrNoNode, wire.CodeNoNode}, {zk.ErrNoAuth, wire.CodeNoAuth},
	{zk.ErrBadVersion, wire.CodeBadVersion}, {zk.ErrNoChildrenForEphemerals, wire.CodeNoChildrenForEphemerals},
	{zk.ErrNodeExists, wire.CodeNodeExists}, {zk.ErrNotEmpty, wire.CodeNotEmpty},
	{zk.ErrSessionExpired, wire.CodeSessionExpired}, {zk.ErrInvalidACL, wire.CodeInvalidACL},
	{zk.ErrAuthFailed, wire.CodeAuthFailed}, {zk.ErrSessionMoved, wire.CodeSessionMoved},
	{zk.ErrReconfigDisabled, wire.CodeReconfigDisabled}, {zk.ErrBadArguments, wire.CodeBadArguments},
}

// gerr names a go-zk error by its protocol code (e.g. NONODE); client-side
// errors keep go-zk's text.
func gerr(err error) string {
	if err == nil {
		return "OK"
	}
	for _, m := range goZKCodes {
		if errors.Is(err, m.err) {
			return codeName(m.code)
		}
	}
	if m := unknownErr.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return codeName(wire.Code(n))
	}
	return "client error: " + err.Error()
}

func zstat(st *zk.Stat) *wire.Stat {
	if st == nil {
		return nil
	}
	return &wire.Stat{
		Czxid: st.Czxid, Mzxid: st.Mzxid, Ctime: st.Ctime, Mtime: st.Mtime, Version: st.Version,
		Cversion: st.Cversion, Aversion: st.Aversion, EphemeralOwner: st.EphemeralOwner,
		DataLength: st.DataLength, NumChildren: st.NumChildren, Pzxid: st.Pzxid,
	}
}

// digestID returns the digest-scheme id of user:password.
func digestID(user, password string) string {
	h := sha1.Sum([]byte(user + ":" + password))
	return user + ":" + base64.StdEncoding.EncodeToString(h[:])
}

// acls formats ACLs compactly: perms scheme:id.
func acls(list []wire.ACL) string {
	if list == nil {
		return "nil"
	}
	parts := make([]string, len(list))
	for i, a := range list {
		parts[i] = fmt.Sprintf("%d %s:%s", a.Perms, a.ID.Scheme, a.ID.ID)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func toWireACL(list []zk.ACL) []wire.ACL {
	if list == nil {
		return nil
	}
	out := make([]wire.ACL, len(list))
	for i, a := range list {
		out[i] = wire.ACL{Perms: a.Perms, ID: wire.Id{Scheme: a.Scheme, ID: a.ID}}
	}
	return out
}

func fromWireACL(list []wire.ACL) []zk.ACL {
	if list == nil {
		return nil
	}
	out := make([]zk.ACL, len(list))
	for i, a := range list {
		out[i] = zk.ACL{Perms: a.Perms, Scheme: a.ID.Scheme, ID: a.ID.ID}
	}
	return out
}

func (g *gclient) log(format string, args ...any) {
	g.s.logf(g.name+" "+format, args...)
}

func (g *gclient) Create(path string, data []byte, flags int32, acl []wire.ACL) (string, error) {
	p, err := g.c.Create(path, data, flags, fromWireACL(acl))
	g.log("create %s %s flags=%d acl=%s -> %s %s", g.s.rel(path), quote(data), flags, acls(acl), gerr(err), g.s.rel(p))
	return p, err
}

func (g *gclient) CreateContainer(path string, data []byte, acl []wire.ACL) (string, error) {
	p, err := g.c.CreateContainer(path, data, zk.FlagContainer, fromWireACL(acl))
	g.log("createContainer %s %s -> %s %s", g.s.rel(path), quote(data), gerr(err), g.s.rel(p))
	return p, err
}

func (g *gclient) CreateTTL(path string, data []byte, flags int32, ttl time.Duration) (string, error) {
	p, err := g.c.CreateTTL(path, data, flags, zk.WorldACL(zk.PermAll), ttl)
	g.log("createTTL %s %s flags=%d ttl=%v -> %s %s", g.s.rel(path), quote(data), flags, ttl, gerr(err), g.s.rel(p))
	return p, err
}

func (g *gclient) Get(path string) ([]byte, *zk.Stat, error) {
	d, st, err := g.c.Get(path)
	g.logResult("get "+g.s.rel(path), err, func() string { return quote(d) + " " + g.s.stat(zstat(st)) })
	return d, st, err
}

func (g *gclient) GetW(path string) ([]byte, *zk.Stat, error) {
	d, st, ch, err := g.c.GetW(path)
	g.logResult("getW "+g.s.rel(path), err, func() string { return quote(d) + " " + g.s.stat(zstat(st)) })
	g.addWatch("data "+g.s.rel(path), ch, err)
	return d, st, err
}

func (g *gclient) Set(path string, data []byte, version int32) (*zk.Stat, error) {
	st, err := g.c.Set(path, data, version)
	g.logResult(fmt.Sprintf("set %s %s version=%d", g.s.rel(path), quote(data), version), err,
		func() string { return g.s.stat(zstat(st)) })
	return st, err
}

func (g *gclient) Delete(path string, version int32) error {
	err := g.c.Delete(path, version)
	g.log("delete %s version=%d -> %s", g.s.rel(path), version, gerr(err))
	return err
}

func (g *gclient) Exists(path string) (bool, *zk.Stat, error) {
	ok, st, err := g.c.Exists(path)
	g.logResult("exists "+g.s.rel(path), err, func() string {
		if !ok {
			return "false"
		}
		return "true " + g.s.stat(zstat(st))
	})
	return ok, st, err
}

func (g *gclient) ExistsW(path string) (bool, *zk.Stat, error) {
	ok, st, ch, err := g.c.ExistsW(path)
	g.logResult("existsW "+g.s.rel(path), err, func() string {
		if !ok {
			return "false"
		}
		return "true " + g.s.stat(zstat(st))
	})
	g.addWatch("exists "+g.s.rel(path), ch, err)
	return ok, st, err
}

func (g *gclient) Children(path string) ([]string, *zk.Stat, error) {
	ch, st, err := g.c.Children(path)
	g.logResult("children "+g.s.rel(path), err, func() string {
		return fmt.Sprintf("%v %s", sorted(ch), g.s.stat(zstat(st)))
	})
	return ch, st, err
}

func (g *gclient) ChildrenW(path string) ([]string, *zk.Stat, error) {
	ch, st, w, err := g.c.ChildrenW(path)
	g.logResult("childrenW "+g.s.rel(path), err, func() string {
		return fmt.Sprintf("%v %s", sorted(ch), g.s.stat(zstat(st)))
	})
	g.addWatch("children "+g.s.rel(path), w, err)
	return ch, st, err
}

func (g *gclient) GetACL(path string) ([]zk.ACL, *zk.Stat, error) {
	acl, st, err := g.c.GetACL(path)
	g.logResult("getACL "+g.s.rel(path), err, func() string {
		return acls(toWireACL(acl)) + " " + g.s.stat(zstat(st))
	})
	return acl, st, err
}

func (g *gclient) SetACL(path string, acl []wire.ACL, version int32) (*zk.Stat, error) {
	st, err := g.c.SetACL(path, fromWireACL(acl), version)
	g.logResult(fmt.Sprintf("setACL %s %s version=%d", g.s.rel(path), acls(acl), version), err,
		func() string { return g.s.stat(zstat(st)) })
	return st, err
}

func (g *gclient) Sync(path string) {
	p, err := g.c.Sync(path)
	g.logResult("sync "+g.s.rel(path), err, func() string { return g.s.rel(p) })
}

func (g *gclient) AddAuth(scheme, auth string) error {
	err := g.c.AddAuth(scheme, []byte(auth))
	g.log("addAuth %s %q -> %s", scheme, auth, gerr(err))
	return err
}

// Multi runs a go-zk multi and logs every per-op result.
func (g *gclient) Multi(desc string, ops ...any) {
	res, err := g.c.Multi(ops...)
	g.log("multi %s -> %s", desc, gerr(err))
	for i, r := range res {
		line := fmt.Sprintf("  [%d] %s", i, gerr(r.Error))
		if r.String != "" {
			line += " " + g.s.rel(r.String)
		}
		if r.Stat != nil {
			line += " " + g.s.stat(zstat(r.Stat))
		}
		g.log("%s", line)
	}
}

func (g *gclient) logResult(desc string, err error, ok func() string) {
	if err != nil {
		g.log("%s -> %s", desc, gerr(err))
		return
	}
	g.log("%s -> OK %s", desc, ok())
}

func (g *gclient) addWatch(desc string, ch <-chan zk.Event, err error) {
	if err == nil && ch != nil {
		g.watches = append(g.watches, &gwatch{desc: desc, ch: ch})
	}
}

// Drain logs the events delivered to this client's pending one-shot
// watches, in registration order. A hidden exists("/") round trip comes
// first: the server sends a connection's notifications before later
// replies, and go-zk delivers them before completing the round trip.
func (g *gclient) Drain() {
	if _, _, err := g.c.Exists("/"); err != nil {
		g.log("drain: %s", gerr(err))
	}
	fired := 0
	kept := g.watches[:0]
	for _, w := range g.watches {
		select {
		case ev, ok := <-w.ch:
			fired++
			if !ok {
				g.log("watch[%s] closed", w.desc)
				continue
			}
			g.log("watch[%s] fired %s %s", w.desc, strings.TrimPrefix(ev.Type.String(), "Event"), g.s.rel(ev.Path))
		default:
			kept = append(kept, w)
		}
	}
	g.watches = kept
	if fired == 0 {
		g.log("no watch fired")
	}
}

// go-zk multi op types, named for brevity in scenarios.
type (
	zkCreate  = zk.CreateRequest
	zkDelete  = zk.DeleteRequest
	zkSetData = zk.SetDataRequest
	zkCheck   = zk.CheckVersionRequest
)
