package integration

import (
	"github.com/zkraft/zkraft/wire"
)

// Scenarios provoking every error code a client can cause, and their
// precedence when several apply.

func init() {
	addScenarios(
		scenario{"errors_basic", diffErrorsBasic},
		scenario{"errors_paths", diffErrorsPaths},
		scenario{"errors_special_nodes", diffErrorsSpecialNodes},
		scenario{"errors_invalid_acl", diffErrorsInvalidACL},
		scenario{"errors_precedence", diffErrorsPrecedence},
	)
}

func diffErrorsBasic(s *sc) {
	a := s.zk("A")
	a.Get(s.p("/none"))
	a.Set(s.p("/none"), nil, -1)
	a.Delete(s.p("/none"), -1)
	a.Children(s.p("/none"))
	a.GetACL(s.p("/none"))
	a.SetACL(s.p("/none"), open, -1)
	a.Create(s.p("/none/child"), nil, 0, open)
	a.Create(s.p("/x"), nil, 0, open)
	a.Create(s.p("/x"), nil, 0, open)
	a.Create(s.p("/x/y"), nil, 0, open)
	a.Delete(s.p("/x"), -1)
	a.Set(s.p("/x"), nil, 5)
	a.Delete(s.p("/x/y"), 5)
	a.SetACL(s.p("/x"), open, 5)
	a.Create(s.p("/eph"), nil, 1, open)
	a.Create(s.p("/eph/c"), nil, 0, open)

	// The raw client shows the zxid of each error reply.
	b := s.raw("B")
	b.GetData(s.p("/none"), false)
	b.Exists(s.p("/none"), false)
	b.GetChildren2(s.p("/none"), false)
	b.GetACL(s.p("/none"))
	b.SetData(s.p("/none"), nil, -1)
	b.Delete(s.p("/none"), -1)
	b.Create(s.p("/x"), nil, 0, open)
	b.Delete(s.p("/x"), -1)
	b.SetData(s.p("/x"), nil, 9)
	b.SetACL(s.p("/x"), open, 9)
	b.Create(s.p("/eph/c"), nil, 0, open)
	b.GetData(s.p("/x"), false)
	b.State()
}

// badPaths are rejected by ZooKeeper's PathUtils.validatePath.
var badPaths = []string{
	"", "a", "/a/", "//", "/a//b", "/a/./b", "/a/../b", "/.", "/..", "/a/.", "/a/..",
	"/a\x00b", "/a\x01b", "/a\x1fb", "/a\x7fb", "/a\u0085b", "/a\ue000b", "/a\ufff0b", "/a\xffb",
}

func diffErrorsPaths(s *sc) {
	b := s.raw("B")
	b.Create(s.p("/ok"), nil, 0, open)
	for _, p := range badPaths {
		// Absolute bad paths as they are; relative ones under the root.
		full := p
		if len(p) > 0 && p[0] == '/' && p != "//" {
			full = s.p(p)
		}
		b.log("-- path [%s]", s.rel(full))
		b.Create(full, nil, 0, open)
		b.Create(full, nil, 2, open)
		b.Delete(full, -1)
		b.SetData(full, nil, -1)
		b.SetACL(full, open, -1)
		if full == "" {
			// Reads of "" are served as "/", whose Stat depends on
			// the other scenarios: compare only the codes.
			for _, op := range []wire.Op{wire.OpGetData, wire.OpExists, wire.OpGetChildren} {
				b.codeOnly(op.String()+" \"\"", op, &wire.PathWatchRequest{Path: full})
			}
			b.codeOnly("getACL \"\"", wire.OpGetACL, &wire.PathRequest{Path: full})
			b.Sync(full)
			continue
		}
		b.GetData(full, false)
		b.Exists(full, false)
		b.GetChildren(full, false)
		b.GetACL(full)
		b.Sync(full)
	}
	b.Exists(s.p("/ok"), false)
	b.State()
}

func diffErrorsSpecialNodes(s *sc) {
	b := s.raw("B")
	for _, p := range []string{"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"} {
		b.Delete(p, -1)
		b.Delete(p, 12345)
	}
	b.Create(s.p("/f"), nil, 7, open)
	b.Create(s.p("/f"), nil, -1, open)
	b.Create(s.p("/f"), nil, 100, open)
	b.Create2(wire.OpCreate2, s.p("/f"), nil, 7, open)
	b.GetChildren(s.p(""), false)
	b.State()
}

func diffErrorsInvalidACL(s *sc) {
	b := s.raw("B")
	b.Create(s.p("/n"), nil, 0, open)
	cases := []struct {
		desc string
		acl  []wire.ACL
	}{
		{"empty", []wire.ACL{}},
		{"null", nil},
		{"unknown scheme", []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "foo", ID: "bar"}}}},
		{"world:foo", []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "world", ID: "foo"}}}},
		{"auth without ids", []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "auth", ID: ""}}}},
		{"digest no colon", []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "digest", ID: "nocolon"}}}},
		{"digest two colons", []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "digest", ID: "a:b:c"}}}},
		{"ip short", []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "ip", ID: "1.2.3"}}}},
		{"ip bad mask", []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "ip", ID: "1.2.3.4/33"}}}},
		{"ip name", []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "ip", ID: "localhost"}}}},
		{"super scheme", []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "super", ID: "x"}}}},
		{"one good one bad", []wire.ACL{wire.OpenACLUnsafe[0], {Perms: 31, ID: wire.Id{Scheme: "foo", ID: "x"}}}},
		{"perms 63", []wire.ACL{{Perms: 63, ID: wire.AnyoneID}}},
		{"perms -1", []wire.ACL{{Perms: -1, ID: wire.AnyoneID}}},
		{"duplicates", []wire.ACL{wire.OpenACLUnsafe[0], wire.OpenACLUnsafe[0]}},
		{"ip ok", []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "ip", ID: "10.0.0.0/8"}}, wire.OpenACLUnsafe[0]}},
		{"digest ok", []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "digest", ID: digestID("u", "p")}}}},
		{"perms 0 (last: locks R/n)", []wire.ACL{{Perms: 0, ID: wire.AnyoneID}}},
	}
	for i, c := range cases {
		b.log("-- acl %s", c.desc)
		p := s.p("/c" + string(rune('a'+i)))
		if b.Create(p, nil, 0, c.acl) == wire.CodeOK {
			b.GetACL(p)
		}
		if b.SetACL(s.p("/n"), c.acl, -1) == wire.CodeOK {
			b.GetACL(s.p("/n"))
			b.SetACL(s.p("/n"), open, -1)
		}
	}
	b.State()
}

func diffErrorsPrecedence(s *sc) {
	a := s.raw("A")
	readOnly := []wire.ACL{{Perms: wire.PermRead, ID: wire.AnyoneID}}
	badACL := []wire.ACL{{Perms: 31, ID: wire.Id{Scheme: "foo", ID: "x"}}}
	a.Create(s.p("/ro"), nil, 0, readOnly) // no CREATE, DELETE, WRITE, ADMIN for anyone
	a.Create(s.p("/ro2"), nil, 0, open)
	a.Create(s.p("/ro2/kid"), nil, 0, open)
	a.SetACL(s.p("/ro2"), readOnly, -1)
	a.Create(s.p("/full"), nil, 0, open)
	a.Create(s.p("/full/kid"), nil, 0, open)
	a.Create(s.p("/eph"), nil, 1, open)

	// Comments give what ZooKeeper 3.8.0 answers.
	a.log("-- create")
	a.Create(s.p("/missing/x"), nil, 0, badACL)            // INVALIDACL before NONODE
	a.Create(s.p("/ro/x"), nil, 0, badACL)                 // INVALIDACL before NOAUTH
	a.Create(s.p("/missing/x/"), nil, 0, open)             // NONODE: parent lookup before path validation
	a.Create(s.p("/missing/./x"), nil, 0, open)            // NONODE likewise
	a.Create(s.p("/ro2/kid"), nil, 0, open)                // NOAUTH before NODEEXISTS
	a.Create(s.p("/eph"), nil, 0, open)                    // NODEEXISTS
	a.Create(s.p("/eph/x"), nil, 9, open)                  // BADARGUMENTS: flags first
	a.Create(s.p("/eph/x"), nil, 0, badACL)                // INVALIDACL before NOCHILDRENFOREPHEMERALS
	a.Create(s.p("/missing/x"), nil, 9, badACL)            // BADARGUMENTS: flags first of all
	a.CreateTTL(wire.OpCreateTTL, s.p("/missing/x"), 5, 0) // BADARGUMENTS: ttl before parent
	a.Create(s.p("/ro/x"), nil, 1, open)                   // NOAUTH for an ephemeral too
	a.Create(s.p("/ro2/kid/x"), nil, 0, open)              // OK: only the parent's ACL counts

	a.log("-- delete")
	a.Delete(s.p("/ro/none"), -1)   // NOAUTH (parent) before NONODE
	a.Delete(s.p("/ro2/kid"), 99)   // NOAUTH before BADVERSION
	a.Delete(s.p("/full"), 99)      // BADVERSION before NOTEMPTY
	a.Delete(s.p("/missing/x"), 99) // NONODE
	a.Delete("/zookeeper", 99)      // BADARGUMENTS first
	a.Delete(s.p("/full/"), -1)     // NONODE: delete does not validate the path
	a.Delete(s.p("/eph/none"), -1)  // NONODE

	a.log("-- setData")
	a.SetData(s.p("/missing"), nil, 99) // NONODE before BADVERSION
	a.SetData(s.p("/ro"), nil, 99)      // NOAUTH before BADVERSION
	a.SetData(s.p("/ro"), nil, -1)      // NOAUTH

	a.log("-- setACL")
	a.SetACL(s.p("/missing"), badACL, 99)    // INVALIDACL before NONODE
	a.SetACL(s.p("/ro"), badACL, 99)         // INVALIDACL before NOAUTH
	a.SetACL(s.p("/ro"), open, 99)           // NOAUTH before BADVERSION
	a.SetACL(s.p("/missing"), open, 99)      // NONODE before BADVERSION
	a.SetACL(s.p("/full"), []wire.ACL{}, 99) // INVALIDACL before BADVERSION

	a.log("-- reads")
	a.GetData(s.p("/ro"), false)
	a.GetChildren2(s.p("/ro2"), false)
	a.GetACL(s.p("/ro"))
	a.State()
}
