package integration

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkraft/zkraft/wire"
)

// Scenarios about node types, Stat fields and the built-in tree.

func init() {
	addScenarios(
		scenario{"crud", diffCRUD},
		scenario{"builtin_nodes", diffBuiltinNodes},
		scenario{"sequential", diffSequential},
		scenario{"ephemeral", diffEphemeral},
		scenario{"container", diffContainer},
		scenario{"ttl", diffTTL},
		scenario{"cversion_pzxid", diffCversionPzxid},
	)
}

var open = wire.OpenACLUnsafe

func diffCRUD(s *sc) {
	a := s.zk("A")
	a.Exists(s.p(""))
	a.Create(s.p("/n"), []byte("v0"), 0, open)
	a.Get(s.p("/n"))
	a.Exists(s.p("/n"))
	a.Set(s.p("/n"), []byte("v1"), 0)
	a.Set(s.p("/n"), []byte("v1"), -1) // identical data still bumps version
	a.Set(s.p("/n"), nil, 2)
	a.Get(s.p("/n"))
	a.Set(s.p("/n"), []byte(""), -1)
	a.Get(s.p("/n"))
	a.Create(s.p("/nil"), nil, 0, open)
	a.Get(s.p("/nil"))
	a.Create(s.p("/n/c"), []byte("child"), 0, open)
	a.Get(s.p("/n"))
	a.Children(s.p("/n"))
	a.Delete(s.p("/n/c"), 0)
	a.Get(s.p("/n"))
	a.Delete(s.p("/n"), 4)
	a.Exists(s.p("/n"))
	a.Get(s.p("/n"))
	a.Children(s.p(""))
	a.Get(s.p(""))

	// The same through the raw client, which also shows reply zxids.
	b := s.raw("B")
	b.Create(s.p("/r"), []byte("x"), 0, open)
	b.GetData(s.p("/r"), false)
	b.Exists(s.p("/r"), false)
	b.SetData(s.p("/r"), []byte("y"), 0)
	b.GetData(s.p("/r"), false)
	b.Delete(s.p("/r"), 1)
	b.Exists(s.p("/r"), false)
	b.GetData(s.p("/r"), false)
}

func diffBuiltinNodes(s *sc) {
	a := s.zk("A")
	for _, p := range []string{"/zookeeper", "/zookeeper/quota", "/zookeeper/config"} {
		if p == "/zookeeper/quota" && !strings.HasSuffix(s.root, "-1") {
			builtinQuotaLaterRun(s, a)
			continue
		}
		a.Get(p)
		a.GetACL(p)
		a.Children(p)
	}
	// "/" has one child per scenario root on a shared server, so only
	// the part that does not depend on other scenarios is compared.
	children, st, err := a.c.Children("/")
	if err != nil {
		s.logf("A children / -> %s", gerr(err))
		return
	}
	var own []string
	for _, c := range children {
		if !strings.HasPrefix(c, "diff-") {
			own = append(own, c)
		}
	}
	d := int32(len(children) - len(own))
	s.logf("A children / (without diff-*) -> %v", sorted(own))
	if st != nil {
		ws := *zstat(st)
		// Every diff-* child adds one create (+2 served cversion) and one
		// child (-1), so cversion-d and numChildren-d are those of a
		// server without scenario roots.
		ws.Cversion -= d
		ws.NumChildren -= d
		ws.Pzxid = 0 // the last scenario root's zxid
		s.logf("A stat / (diff-* removed, pzxid hidden) -> %s", s.stat(&ws))
	}
	acl, _, err := a.c.GetACL("/")
	s.logf("A getACL / -> %s %s", gerr(err), acls(toWireACL(acl)))

	// Nothing here changes the built-in nodes, so that a second run
	// (-count=2) against the shared ZooKeeper sees them unchanged.
	b := s.raw("B")
	b.GetData("/zookeeper/config", false)
	b.GetACL("/zookeeper/config")
	b.GetChildren2("/zookeeper", false)
	b.SetData("/zookeeper/config", []byte("x"), -1)
	b.SetData("/zookeeper/quota", []byte("q"), 7)
	b.Create("/zookeeper/quota", nil, 0, open)
	b.Create("/zookeeper", nil, 0, open)
	b.Create("/", nil, 0, open)
	b.GetChildren("/zookeeper/quota", false)
}

// builtinQuotaLaterRun reads /zookeeper/quota in a second or later run
// (-count=N): the quota scenario of an earlier run created and deleted a
// child of it on the shared ZooKeeper, while zkraft starts afresh for each
// run, so its cversion and pzxid are hidden there.
func builtinQuotaLaterRun(s *sc, a *gclient) {
	const p = "/zookeeper/quota"
	hide := func(st *zk.Stat) string {
		if st == nil {
			return "stat=nil"
		}
		ws := *zstat(st)
		ws.Cversion, ws.Pzxid = 0, 0
		return s.stat(&ws) + " (cversion, pzxid hidden)"
	}
	d, st, err := a.c.Get(p)
	a.logResult("get "+p, err, func() string { return quote(d) + " " + hide(st) })
	acl, st, err := a.c.GetACL(p)
	a.logResult("getACL "+p, err, func() string { return acls(toWireACL(acl)) + " " + hide(st) })
	ch, st, err := a.c.Children(p)
	a.logResult("children "+p, err, func() string { return fmt.Sprintf("%v %s", sorted(ch), hide(st)) })
}

func diffSequential(s *sc) {
	a := s.zk("A")
	a.Create(s.p("/s"), nil, 0, open)
	a.Create(s.p("/s/a-"), nil, 2, open)
	a.Create(s.p("/s/b-"), nil, 2, open)
	a.Create(s.p("/s/plain"), nil, 0, open)
	a.Delete(s.p("/s/plain"), -1)
	a.Delete(s.p("/s/a-0000000000"), -1)
	a.Create(s.p("/s/c-"), nil, 2, open)
	a.Create(s.p("/s/e-"), nil, 3, open)
	a.Get(s.p("/s"))
	a.Children(s.p("/s"))

	// A fresh parent whose only create was deleted: the counter stays.
	a.Create(s.p("/t"), nil, 0, open)
	a.Create(s.p("/t/x"), nil, 0, open)
	a.Delete(s.p("/t/x"), -1)
	a.Create(s.p("/t/x-"), nil, 2, open)

	// A path ending in '/' (go-zk refuses it client-side; use raw).
	b := s.raw("B")
	b.Create(s.p("/t/"), []byte("slash"), 2, open)
	b.Create(s.p("/t/"), nil, 3, open)
	b.Create(s.p("/t/"), nil, 0, open) // not sequential: invalid path
	b.Create2(wire.OpCreate2, s.p("/t/"), nil, 2, open)
	b.GetChildren(s.p("/t"), false)
	b.Create(s.p("/"), nil, 2, open)
	b.Create(s.p("/u/"), nil, 2, open) // parent missing
	b.Create(s.p("/t/0000000005"), nil, 0, open)
	b.Create(s.p("/t/"), nil, 2, open) // collides with the one created above
	b.GetChildren2(s.p("/t"), false)
}

func diffEphemeral(s *sc) {
	a := s.zk("A")
	b := s.zk("B")
	a.Create(s.p("/e"), []byte("eph"), 1, open)
	a.Exists(s.p("/e"))
	b.Exists(s.p("/e"))
	a.Create(s.p("/e/child"), nil, 0, open)
	a.Create(s.p("/e/eph"), nil, 1, open)
	a.Create(s.p("/e/seq-"), nil, 3, open)
	b.Create(s.p("/e/other"), nil, 0, open)
	b.Create(s.p("/e"), nil, 1, open)
	a.Set(s.p("/e"), []byte("changed"), -1)
	b.Set(s.p("/e"), []byte("by B"), -1) // other sessions may write it
	a.Create(s.p("/p"), nil, 0, open)
	a.Create(s.p("/p/e1"), nil, 1, open)
	a.Create(s.p("/p/e2-"), nil, 3, open)
	b.Children(s.p("/p"))
	b.Delete(s.p("/p/e1"), -1) // other sessions may delete it
	b.Children(s.p("/p"))
	b.Get(s.p("/p"))
	a.Close()
	b.Exists(s.p("/e"))
	b.Children(s.p("/p"))
	b.Get(s.p("/p"))
}

func diffContainer(s *sc) {
	a := s.zk("A")
	a.CreateContainer(s.p("/c"), []byte("box"), open)
	a.Get(s.p("/c"))
	a.CreateContainer(s.p("/c"), nil, open)
	a.Create(s.p("/c/child"), nil, 0, open)
	a.Create(s.p("/c/eph"), nil, 1, open)
	a.Get(s.p("/c"))
	a.CreateContainer(s.p("/c/sub"), nil, open)
	a.Get(s.p("/c/sub"))
	a.CreateContainer(s.p("/missing/c"), nil, open)

	b := s.raw("B")
	b.Create2(wire.OpCreateContainer, s.p("/c2"), nil, 4, open)
	b.Create2(wire.OpCreateContainer, s.p("/c3"), nil, 0, open) // opcode 19, flags 0
	b.Create2(wire.OpCreateContainer, s.p("/c4"), nil, 1, open) // opcode 19, ephemeral flag
	b.Create2(wire.OpCreateContainer, s.p("/c5-"), nil, 2, open)
	b.Create(s.p("/c6"), nil, 4, open) // flag 4 through plain create
	b.Create2(wire.OpCreate2, s.p("/c7"), nil, 4, open)
	b.Exists(s.p("/c3"), false)
	b.Exists(s.p("/c6"), false)
	b.Exists(s.p("/c7"), false)
	b.Create(s.p("/c6/x"), nil, 0, open)
}

func diffTTL(s *sc) {
	a := s.zk("A")
	a.CreateTTL(s.p("/t1"), []byte("ttl"), 5, time.Hour)
	a.Get(s.p("/t1"))
	a.CreateTTL(s.p("/t2-"), nil, 6, time.Hour)
	a.CreateTTL(s.p("/t1"), nil, 5, time.Hour)
	a.CreateTTL(s.p("/t0"), nil, 5, 0)
	a.Create(s.p("/t1/child"), nil, 0, open)
	a.Get(s.p("/t1"))
	a.Children(s.p(""))

	b := s.raw("B")
	const maxTTL = 1<<40 - 1
	b.CreateTTL(wire.OpCreateTTL, s.p("/ttl-max"), 5, maxTTL)
	b.CreateTTL(wire.OpCreateTTL, s.p("/ttl-over"), 5, maxTTL+1)
	b.CreateTTL(wire.OpCreateTTL, s.p("/ttl-neg"), 5, -1)
	b.CreateTTL(wire.OpCreateTTL, s.p("/ttl-zero"), 6, 0)
	b.CreateTTL(wire.OpCreateTTL, s.p("/ttl-flag0"), 0, 1000)
	b.CreateTTL(wire.OpCreateTTL, s.p("/ttl-flag1"), 1, 1000)
	b.CreateTTL(wire.OpCreateTTL, s.p("/ttl-flag4"), 4, 1000)
	b.CreateTTL(wire.OpCreateTTL, s.p("/ttl-flag7"), 7, 1000)
	b.Create(s.p("/ttl-create1"), nil, 5, open)
	b.Create2(wire.OpCreate2, s.p("/ttl-create2"), nil, 6, open)
	b.Create2(wire.OpCreateContainer, s.p("/ttl-container"), nil, 5, open)
	b.CreateTTL(wire.OpCreateTTL, s.p("/missing/ttl"), 5, 1000)
	b.CreateTTL(wire.OpCreateTTL, s.p("/ttl-max"), 5, 1000)
	b.GetChildren(s.p(""), false)
}

func diffCversionPzxid(s *sc) {
	a := s.zk("A")
	a.Create(s.p("/p"), nil, 0, open)
	a.Exists(s.p("/p"))
	a.Create(s.p("/p/a"), nil, 0, open)
	a.Exists(s.p("/p"))
	a.Create(s.p("/p/b"), nil, 0, open)
	a.Exists(s.p("/p"))
	a.Delete(s.p("/p/a"), -1)
	a.Exists(s.p("/p"))
	a.Set(s.p("/p/b"), []byte("x"), -1) // child data change: parent unchanged
	a.Exists(s.p("/p"))
	a.Create(s.p("/p/b/deep"), nil, 0, open) // grandchild: parent unchanged
	a.Exists(s.p("/p"))
	a.Delete(s.p("/p/b/deep"), -1)
	a.Delete(s.p("/p/b"), -1)
	a.Exists(s.p("/p"))
	a.SetACL(s.p("/p"), open, -1) // touches only aversion
	a.Exists(s.p("/p"))
	a.Multi("create+delete", &zkCreate{Path: s.p("/p/m"), Acl: fromWireACL(open)}, &zkDelete{Path: s.p("/p/m"), Version: -1})
	a.Exists(s.p("/p"))
	a.Delete(s.p("/p/none"), -1) // failed delete: parent unchanged
	a.Exists(s.p("/p"))
}
