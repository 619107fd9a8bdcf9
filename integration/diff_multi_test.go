package integration

import (
	"github.com/zkraft/zkraft/wire"
)

// Scenarios about multi, multiRead and the create/getChildren variants.

func init() {
	addScenarios(
		scenario{"multi_gozk", diffMultiGoZK},
		scenario{"multi_raw", diffMultiRaw},
		scenario{"multi_sequential", diffMultiSequential},
		scenario{"multi_bad", diffMultiBad},
		scenario{"multiread", diffMultiRead},
		scenario{"create2_getchildren", diffCreate2GetChildren},
	)
}

func diffMultiGoZK(s *sc) {
	a := s.zk("A")
	acl := fromWireACL(open)
	a.Create(s.p("/m"), []byte("m"), 0, open)
	a.Multi("success",
		&zkCreate{Path: s.p("/m/a"), Data: []byte("a"), Acl: acl},
		&zkCreate{Path: s.p("/m/a/b"), Acl: acl},
		&zkSetData{Path: s.p("/m"), Data: []byte("m2"), Version: 0},
		&zkCheck{Path: s.p("/m"), Version: 1},
		&zkCreate{Path: s.p("/m/tmp"), Acl: acl},
		&zkDelete{Path: s.p("/m/tmp"), Version: 0},
	)
	a.Get(s.p("/m"))
	a.Get(s.p("/m/a"))
	a.Get(s.p("/m/a/b"))
	a.Multi("fail at check",
		&zkCreate{Path: s.p("/m/c"), Acl: acl},
		&zkCheck{Path: s.p("/m"), Version: 0},
		&zkSetData{Path: s.p("/m"), Data: []byte("never"), Version: -1},
	)
	a.Exists(s.p("/m/c"))
	a.Get(s.p("/m"))
	a.Multi("fail at last op",
		&zkSetData{Path: s.p("/m"), Data: []byte("x"), Version: -1},
		&zkDelete{Path: s.p("/m/a"), Version: -1},
	)
	a.Multi("fail at first op",
		&zkDelete{Path: s.p("/m/none"), Version: -1},
		&zkCreate{Path: s.p("/m/d"), Acl: acl},
	)
	a.Multi("create twice",
		&zkCreate{Path: s.p("/m/dup"), Acl: acl},
		&zkCreate{Path: s.p("/m/dup"), Acl: acl},
	)
	a.Multi("check missing", &zkCheck{Path: s.p("/m/none"), Version: -1})
	a.Multi("ephemeral parent",
		&zkCreate{Path: s.p("/m/e"), Acl: acl, Flags: 1},
		&zkCreate{Path: s.p("/m/e/x"), Acl: acl},
	)
	a.Get(s.p("/m"))
}

func diffMultiRaw(s *sc) {
	a := s.raw("A")
	w := s.raw("W")
	a.Create(s.p("/r"), []byte("r"), 0, open)
	w.Exists(s.p("/r/x"), true)
	w.GetData(s.p("/r"), true)
	w.GetChildren(s.p("/r"), true)
	a.Multi(wire.OpMulti, "all result types",
		opCreate(s.p("/r/x"), []byte("x"), 0),
		opCreate2(s.p("/r/y"), 0),
		wire.MultiOp{Type: wire.OpCreateContainer, Record: &wire.CreateRequest{Path: s.p("/r/c"), ACL: open, Flags: 4}},
		wire.MultiOp{Type: wire.OpCreateTTL, Record: &wire.CreateTTLRequest{Path: s.p("/r/t"), ACL: open, Flags: 5, TTL: 60000}},
		opSetData(s.p("/r"), []byte("r2"), -1),
		opCheck(s.p("/r"), 1),
		opDelete(s.p("/r/y"), 0),
	)
	w.Drain()
	a.GetChildren2(s.p("/r"), false)
	a.Exists(s.p("/r/c"), false)
	a.Exists(s.p("/r/t"), false)
	w.Exists(s.p("/r/x"), true)
	w.GetData(s.p("/r"), true)
	a.Multi(wire.OpMulti, "failure in the middle",
		opSetData(s.p("/r/x"), []byte("x2"), -1),
		opCreate2(s.p("/r/z"), 0),
		opCreate(s.p("/r/x"), nil, 0),
		opDelete(s.p("/r/x"), -1),
		opCheck(s.p("/r"), 99),
	)
	w.Drain()
	a.GetData(s.p("/r/x"), false)
	a.Exists(s.p("/r/z"), false)
	a.Multi(wire.OpMulti, "delete then recreate",
		opDelete(s.p("/r/x"), -1),
		opCreate(s.p("/r/x"), []byte("again"), 0),
	)
	w.Drain()
	a.GetData(s.p("/r/x"), false)
	a.Multi(wire.OpMulti, "create in missing parent after create",
		opCreate(s.p("/r/p"), nil, 0),
		opCreate(s.p("/r/p/q/z"), nil, 0),
	)
	a.Multi(wire.OpMulti, "bad path", opCreate(s.p("/r/bad/"), nil, 0))
	a.Multi(wire.OpMulti, "bad acl", wire.MultiOp{Type: wire.OpCreate, Record: &wire.CreateRequest{Path: s.p("/r/acl"), ACL: []wire.ACL{}}})
	a.Multi(wire.OpMulti, "delete special", opDelete("/zookeeper", -1))
	a.Multi(wire.OpMulti, "not empty", opDelete(s.p("/r"), -1))
	a.State()
}

func diffMultiSequential(s *sc) {
	a := s.raw("A")
	a.Create(s.p("/q"), nil, 0, open)
	a.Multi(wire.OpMulti, "three sequential",
		opCreate(s.p("/q/s-"), nil, 2),
		opCreate(s.p("/q/s-"), nil, 2),
		opCreate2(s.p("/q/t-"), 2),
	)
	a.Multi(wire.OpMulti, "failed sequential",
		opCreate(s.p("/q/s-"), nil, 2),
		opCreate(s.p("/q/s-"), nil, 2),
		opCheck(s.p("/q"), 99),
	)
	a.Create(s.p("/q/s-"), nil, 2, open)
	a.Multi(wire.OpMulti, "sequential ephemeral and delete",
		opCreate(s.p("/q/e-"), nil, 3),
		opDelete(s.p("/q/s-0000000000"), -1),
		opCreate(s.p("/q/s-"), nil, 2),
	)
	a.GetChildren2(s.p("/q"), false)
	a.GetEphemerals(s.p("/q"))
}

func diffMultiBad(s *sc) {
	a := s.raw("A")
	a.Create(s.p("/b"), []byte("b"), 0, open)
	a.Multi(wire.OpMulti, "empty")
	a.State()
	b := s.raw("B")
	b.Multi(wire.OpMulti, "mixed read and write", opSetData(s.p("/b"), nil, -1), opGetData(s.p("/b")))
	b.State()
	c := s.raw("C")
	c.Multi(wire.OpMultiRead, "multiRead with a write", opGetData(s.p("/b")), opSetData(s.p("/b"), nil, -1))
	c.State()
	d := s.raw("D")
	d.Multi(wire.OpMulti, "exists inside multi", wire.MultiOp{Type: wire.OpExists, Record: &wire.PathWatchRequest{Path: s.p("/b")}})
	d.State()
	e := s.raw("E")
	e.Multi(wire.OpMultiRead, "empty multiRead")
	e.State()
	f := s.raw("F")
	f.Multi(wire.OpMultiRead, "getChildren2 in multiRead", wire.MultiOp{Type: wire.OpGetChildren2, Record: &wire.PathWatchRequest{Path: s.p("/b")}})
	f.State()
	g := s.raw("G")
	g.GetData(s.p("/b"), false)
}

func diffMultiRead(s *sc) {
	a := s.raw("A")
	a.Auth(wire.XidAuth, "digest", "o:pw")
	a.Create(s.p("/x"), []byte("x"), 0, open)
	a.Create(s.p("/x/1"), nil, 0, open)
	a.Create(s.p("/x/2"), nil, 0, open)
	a.Create(s.p("/secret"), []byte("s"), 0, []wire.ACL{digestACL(wire.PermAll, "o", "pw")})
	a.Multi(wire.OpMultiRead, "mixed results",
		opGetData(s.p("/x")),
		opGetChildren(s.p("/x")),
		opGetData(s.p("/none")),
		opGetChildren(s.p("/none")),
		opGetData(s.p("/x/1")),
		opGetData(s.p("/x/bad/")),
	)
	b := s.raw("B")
	b.Multi(wire.OpMultiRead, "noauth",
		opGetData(s.p("/secret")),
		opGetChildren(s.p("/secret")),
		opGetData(s.p("/x")),
	)
	// Watch flags inside multiRead are ignored.
	b.Multi(wire.OpMultiRead, "watch flags",
		wire.MultiOp{Type: wire.OpGetData, Record: &wire.PathWatchRequest{Path: s.p("/x"), Watch: true}},
		wire.MultiOp{Type: wire.OpGetChildren, Record: &wire.PathWatchRequest{Path: s.p("/x"), Watch: true}},
	)
	a.SetData(s.p("/x"), []byte("changed"), -1)
	a.Create(s.p("/x/3"), nil, 0, open)
	b.Drain()
	b.Multi(wire.OpMultiRead, "after changes", opGetData(s.p("/x")), opGetChildren(s.p("/x")))
	b.State()
}

func diffCreate2GetChildren(s *sc) {
	a := s.raw("A")
	w := s.raw("W")
	a.Create2(wire.OpCreate2, s.p("/c"), []byte("c"), 0, open)
	a.Create2(wire.OpCreate2, s.p("/c/e"), []byte("eph"), 1, open)
	a.Create2(wire.OpCreate2, s.p("/c/s-"), nil, 2, open)
	a.Create2(wire.OpCreate2, s.p("/c/es-"), nil, 3, open)
	a.Create2(wire.OpCreate2, s.p("/c"), nil, 0, open)
	a.Create2(wire.OpCreate2, s.p("/c/e/x"), nil, 0, open)
	w.GetChildren(s.p("/c"), true)
	w.GetChildren2(s.p("/c"), true)
	w.GetChildren(s.p("/none"), true)
	w.GetChildren2(s.p("/none"), true)
	a.Create2(wire.OpCreate2, s.p("/c/new"), nil, 0, open)
	w.Drain()
	a.Create2(wire.OpCreate2, s.p("/none"), nil, 0, open)
	w.Drain()
	w.GetChildren2(s.p("/c"), false)
	w.GetChildren(s.p("/c/e"), false)
	w.GetChildren2(s.p("/c/e"), false)
}
