package integration

import (
	"github.com/zkraft/zkraft/wire"
)

// Scenarios about ACLs, authentication and whoAmI.

func init() {
	addScenarios(
		scenario{"acl_digest", diffACLDigest},
		scenario{"acl_auth_scheme", diffACLAuthScheme},
		scenario{"acl_ip", diffACLIP},
		scenario{"acl_setacl_aversion", diffACLAversion},
		scenario{"acl_super", diffACLSuper},
		scenario{"acl_noauth_every_op", diffACLNoAuthEveryOp},
		scenario{"auth_failures", diffAuthFailures},
		scenario{"whoami", diffWhoAmI},
	)
}

func digestACL(perms int32, user, password string) wire.ACL {
	return wire.ACL{Perms: perms, ID: wire.Id{Scheme: "digest", ID: digestID(user, password)}}
}

func diffACLDigest(s *sc) {
	a := s.zk("A")
	b := s.zk("B")
	a.AddAuth("digest", "u1:p1")
	only := []wire.ACL{digestACL(wire.PermAll, "u1", "p1")}
	a.Create(s.p("/d"), []byte("secret"), 0, only)
	a.Get(s.p("/d"))
	a.GetACL(s.p("/d"))
	a.Create(s.p("/d/kid"), nil, 0, open)
	b.Get(s.p("/d"))
	b.Exists(s.p("/d"))
	b.GetACL(s.p("/d"))
	b.Children(s.p("/d"))
	b.Set(s.p("/d"), nil, -1)
	b.Create(s.p("/d/x"), nil, 0, open)
	b.Delete(s.p("/d/kid"), -1)
	b.SetACL(s.p("/d"), open, -1)
	b.Get(s.p("/d/kid")) // the child's own ACL is open
	b.AddAuth("digest", "u1:wrong")
	b.Get(s.p("/d"))
	b.AddAuth("digest", "u1:p1")
	b.Get(s.p("/d"))

	// getACL without ADMIN masks digest ids; with ADMIN it does not.
	mixed := []wire.ACL{digestACL(wire.PermAll, "u1", "p1"), digestACL(wire.PermRead, "u9", "p9"),
		{Perms: wire.PermRead, ID: wire.AnyoneID}}
	a.Create(s.p("/m"), nil, 0, mixed)
	a.GetACL(s.p("/m"))
	c := s.zk("C")
	c.GetACL(s.p("/m"))
	c.AddAuth("digest", "u9:p9")
	c.GetACL(s.p("/m"))
	readAdmin := []wire.ACL{digestACL(wire.PermAll, "u1", "p1"), {Perms: wire.PermAdmin, ID: wire.AnyoneID}}
	a.Create(s.p("/adm"), nil, 0, readAdmin)
	c.GetACL(s.p("/adm"))
	c.Get(s.p("/adm"))
	writeOnly := []wire.ACL{digestACL(wire.PermAll, "u1", "p1"), {Perms: wire.PermWrite, ID: wire.AnyoneID}}
	a.Create(s.p("/w"), nil, 0, writeOnly)
	c.GetACL(s.p("/w"))
	c.Set(s.p("/w"), []byte("w"), -1)
}

func diffACLAuthScheme(s *sc) {
	a := s.zk("A")
	a.Create(s.p("/noauth"), nil, 0, wire.CreatorAllACL) // no authenticated id yet
	a.AddAuth("digest", "u2:p2")
	a.Create(s.p("/one"), nil, 0, wire.CreatorAllACL)
	a.GetACL(s.p("/one"))
	a.AddAuth("digest", "u3:p3")
	a.AddAuth("digest", "u2:p2") // the same id again
	a.Create(s.p("/two"), nil, 0, []wire.ACL{{Perms: wire.PermRead | wire.PermWrite, ID: wire.Id{Scheme: "auth", ID: "ignored"}}})
	a.GetACL(s.p("/two"))
	a.Create(s.p("/mix"), nil, 0, []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "auth"}}, {Perms: wire.PermRead, ID: wire.AnyoneID}})
	a.GetACL(s.p("/mix"))
	a.SetACL(s.p("/one"), wire.CreatorAllACL, -1)
	a.GetACL(s.p("/one"))
	b := s.zk("B")
	b.Get(s.p("/one"))
	b.AddAuth("digest", "u3:p3")
	b.Get(s.p("/one"))
	b.Get(s.p("/two"))
}

func diffACLIP(s *sc) {
	a := s.zk("A")
	ip := func(perms int32, id string) wire.ACL {
		return wire.ACL{Perms: perms, ID: wire.Id{Scheme: "ip", ID: id}}
	}
	a.Create(s.p("/local"), []byte("l"), 0, []wire.ACL{ip(wire.PermAll, "127.0.0.1")})
	a.Create(s.p("/net8"), []byte("n"), 0, []wire.ACL{ip(wire.PermAll, "127.0.0.0/8")})
	a.Create(s.p("/other"), []byte("o"), 0, []wire.ACL{ip(wire.PermAll, "10.0.0.0/8")})
	a.Create(s.p("/other32"), []byte("o"), 0, []wire.ACL{ip(wire.PermAll, "10.1.2.3/32")})
	a.Create(s.p("/zero"), []byte("z"), 0, []wire.ACL{ip(wire.PermRead, "0.0.0.0/0")})
	a.Create(s.p("/v6"), []byte("6"), 0, []wire.ACL{ip(wire.PermAll, "::1")})
	for _, n := range []string{"/local", "/net8", "/other", "/other32", "/zero", "/v6"} {
		a.Get(s.p(n))
		a.GetACL(s.p(n))
	}
	a.Create(s.p("/local/kid"), nil, 0, open)
	a.Create(s.p("/other/kid"), nil, 0, open)
	a.AddAuth("ip", "10.1.2.3")
	a.Get(s.p("/other"))
	a.Create(s.p("/auth-ip"), nil, 0, wire.CreatorAllACL)
}

func diffACLAversion(s *sc) {
	a := s.zk("A")
	a.Create(s.p("/n"), []byte("d"), 0, open)
	a.Set(s.p("/n"), []byte("d2"), -1)
	a.SetACL(s.p("/n"), open, 0)
	a.SetACL(s.p("/n"), open, 0)
	a.SetACL(s.p("/n"), open, 1)
	a.SetACL(s.p("/n"), wire.ReadACLUnsafe, -1)
	a.GetACL(s.p("/n"))
	a.Get(s.p("/n"))
	a.SetACL(s.p("/n"), open, -1) // READ only now: no ADMIN
	a.Set(s.p("/n"), nil, -1)
	a.Create(s.p("/adm"), nil, 0, []wire.ACL{{Perms: wire.PermAdmin, ID: wire.AnyoneID}})
	a.SetACL(s.p("/adm"), open, 0)
	a.GetACL(s.p("/adm"))
	a.Get(s.p("/adm"))
}

func diffACLSuper(s *sc) {
	a := s.zk("A")
	a.AddAuth("digest", "u1:p1")
	a.Create(s.p("/locked"), []byte("l"), 0, []wire.ACL{digestACL(wire.PermAll, "u1", "p1")})
	a.Create(s.p("/locked/kid"), nil, 0, []wire.ACL{digestACL(wire.PermRead, "u1", "p1")})
	root := s.zk("ROOT")
	root.Get(s.p("/locked"))
	root.AddAuth("digest", "super:wrong")
	root.Get(s.p("/locked"))
	root.AddAuth("digest", "super:test")
	root.Get(s.p("/locked"))
	root.GetACL(s.p("/locked"))
	root.Children(s.p("/locked"))
	root.Set(s.p("/locked/kid"), []byte("by super"), -1)
	root.Create(s.p("/locked/new"), nil, 0, wire.CreatorAllACL)
	root.GetACL(s.p("/locked/new"))
	root.Delete(s.p("/locked/kid"), -1)
	root.SetACL(s.p("/locked"), wire.ReadACLUnsafe, -1)
	root.Delete(s.p("/locked/new"), -1)
	root.Delete(s.p("/locked"), -1)
	root.Exists(s.p("/locked"))
	r := s.raw("R")
	r.Auth(wire.XidAuth, "digest", "super:test")
	r.WhoAmI()
	r.SetData("/zookeeper/config", []byte(""), 12345)
}

func diffACLNoAuthEveryOp(s *sc) {
	a := s.raw("A")
	a.Auth(wire.XidAuth, "digest", "owner:pw")
	own := []wire.ACL{digestACL(wire.PermAll, "owner", "pw")}
	a.Create(s.p("/p"), []byte("data"), 0, own)
	a.Create(s.p("/p/kid"), nil, 0, own)
	b := s.raw("B")
	b.GetData(s.p("/p"), true)
	b.Exists(s.p("/p"), true)
	b.GetChildren(s.p("/p"), true)
	b.GetChildren2(s.p("/p"), true)
	b.GetACL(s.p("/p"))
	b.GetAllChildrenNumber(s.p("/p"))
	b.SetData(s.p("/p"), nil, -1)
	b.SetACL(s.p("/p"), open, -1)
	b.Create(s.p("/p/x"), nil, 0, open)
	b.Create2(wire.OpCreate2, s.p("/p/x"), nil, 0, open)
	b.Create2(wire.OpCreateContainer, s.p("/p/x"), nil, 4, open)
	b.CreateTTL(wire.OpCreateTTL, s.p("/p/x"), 5, 1000)
	b.Delete(s.p("/p/kid"), -1)
	b.Sync(s.p("/p"))
	b.AddWatch(s.p("/p"), wire.AddWatchPersistent)
	b.Multi(wire.OpMulti, "check", opCheck(s.p("/p"), -1))
	b.Multi(wire.OpMulti, "setData", opSetData(s.p("/p"), nil, -1))
	b.Multi(wire.OpMultiRead, "read", opGetData(s.p("/p")), opGetChildren(s.p("/p")), opGetData(s.p("")))
	// Do watches set by the failed reads fire? A writes, B drains.
	a.SetData(s.p("/p"), []byte("new"), -1)
	a.Create(s.p("/p/kid2"), nil, 0, own)
	b.Drain()
	b.State()
}

func diffAuthFailures(s *sc) {
	for i, c := range []struct {
		xid          int32
		scheme, auth string
	}{
		{wire.XidAuth, "digest", "nocolon"},
		{wire.XidAuth, "digest", ""},
		{wire.XidAuth, "ip", "10.0.0.1"},
		{wire.XidAuth, "world", "anyone"},
		{wire.XidAuth, "foo", "bar"},
		{wire.XidAuth, "super", "x"},
		{wire.XidAuth, "sasl", "x"},
		{wire.XidAuth, "x509", "x"},
		{7, "digest", "u:p"}, // go-zk style positive xid
		{7, "foo", "bar"},
	} {
		r := s.raw(string(rune('A' + i)))
		r.Auth(c.xid, c.scheme, c.auth)
		r.State()
	}
}

func diffWhoAmI(s *sc) {
	a := s.raw("A")
	a.WhoAmI()
	a.Auth(wire.XidAuth, "digest", "alice:pw")
	a.WhoAmI()
	a.Auth(wire.XidAuth, "digest", "bob:pw")
	a.Auth(wire.XidAuth, "digest", "alice:pw")
	a.WhoAmI()
	a.Auth(wire.XidAuth, "ip", "10.0.0.1")
	a.WhoAmI()
	a.Auth(wire.XidAuth, "digest", "super:test")
	a.WhoAmI()
	a.Auth(wire.XidAuth, "digest", "carol:a:b")
	a.WhoAmI()
}
