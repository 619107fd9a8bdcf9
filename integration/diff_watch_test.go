package integration

import (
	"fmt"
	"sort"

	"github.com/zkraft/zkraft/wire"
)

// Scenarios about watches: which events fire, on which connection, and in
// which order relative to replies.

func init() {
	addScenarios(
		scenario{"watch_oneshot", diffWatchOneShot},
		scenario{"watch_order", diffWatchOrder},
		scenario{"watch_delete", diffWatchDelete},
		scenario{"watch_session_close", diffWatchSessionClose},
		scenario{"watch_gozk", diffWatchGoZK},
		scenario{"watch_persistent", diffWatchPersistent},
		scenario{"watch_persistent_recursive", diffWatchPersistentRecursive},
		scenario{"watch_remove_check", diffWatchRemoveCheck},
		scenario{"setwatches", diffSetWatches},
		scenario{"setwatches2", diffSetWatches2},
		scenario{"notification_zxid", diffNotificationZxid},
		scenario{"watch_persistent_then_oneshot", diffPersistentThenOneShot},
	)
}

func diffWatchOneShot(s *sc) {
	w := s.raw("W")
	b := s.raw("B")
	w.Exists(s.p("/w"), true)
	w.Exists(s.p("/w"), true) // twice: still one event
	b.Create(s.p("/w"), []byte("0"), 0, open)
	w.Drain()
	w.GetData(s.p("/w"), true)
	w.Exists(s.p("/w"), true)
	w.GetChildren(s.p("/w"), true)
	b.SetData(s.p("/w"), []byte("1"), -1)
	w.Drain()
	b.SetData(s.p("/w"), []byte("2"), -1) // data watches are spent
	w.Drain()
	b.Create(s.p("/w/c"), nil, 0, open)
	w.Drain()
	b.Create(s.p("/w/d"), nil, 0, open) // child watch is spent
	w.Drain()
	b.SetACL(s.p("/w"), open, -1) // setACL fires nothing
	b.Sync(s.p("/w"))
	w.GetData(s.p("/w"), true)
	b.SetACL(s.p("/w"), open, -1)
	w.Drain()

	// The writer's own watch fires before the writer's reply.
	w.GetData(s.p("/w/c"), true)
	w.SetData(s.p("/w/c"), []byte("self"), -1)
	w.GetChildren(s.p("/w"), true)
	w.Create2(wire.OpCreate2, s.p("/w/self"), nil, 0, open)
	w.Exists(s.p("/w/gone"), true)
	w.Create(s.p("/w/gone"), nil, 0, open)
	w.Exists(s.p("/w/gone"), true)
	w.Delete(s.p("/w/gone"), -1)
	// Failed writes fire nothing.
	w.GetData(s.p("/w"), true)
	w.SetData(s.p("/w"), nil, 99)
	w.Drain()
}

func diffWatchOrder(s *sc) {
	w := s.raw("W")
	b := s.raw("B")
	for _, n := range []string{"/o1", "/o2", "/o3"} {
		b.Create(s.p(n), nil, 0, open)
		w.GetData(s.p(n), true)
	}
	w.GetChildren(s.p(""), true)
	b.SetData(s.p("/o2"), []byte("x"), -1)
	b.SetData(s.p("/o1"), []byte("x"), -1)
	b.Create(s.p("/o4"), nil, 0, open)
	b.SetData(s.p("/o3"), []byte("x"), -1)
	// W's next reply comes after all four events, in commit order.
	w.GetData(s.p("/o1"), true)
	w.GetData(s.p("/o2"), true)
	w.GetData(s.p("/o3"), true)
	w.GetChildren(s.p(""), true)
	b.Multi(wire.OpMulti, "three ops",
		opSetData(s.p("/o3"), nil, -1),
		opCreate(s.p("/o5"), nil, 0),
		opSetData(s.p("/o1"), nil, -1),
		opDelete(s.p("/o2"), -1),
	)
	w.Drain()
}

func diffWatchDelete(s *sc) {
	w := s.raw("W")
	b := s.raw("B")
	b.Create(s.p("/d"), nil, 0, open)
	b.Create(s.p("/d/n"), nil, 0, open)
	w.GetData(s.p("/d/n"), true)
	w.Exists(s.p("/d/n"), true)
	w.GetChildren(s.p("/d/n"), true)
	w.GetChildren(s.p("/d"), true)
	w.Exists(s.p("/d/other"), true)
	b.Delete(s.p("/d/n"), -1)
	w.Drain()
	// Only a child watch on the deleted node.
	b.Create(s.p("/d/m"), nil, 0, open)
	w.GetChildren(s.p("/d/m"), true)
	b.Delete(s.p("/d/m"), -1)
	w.Drain()
	// Only an exists watch on the deleted node.
	b.Create(s.p("/d/k"), nil, 0, open)
	w.Exists(s.p("/d/k"), true)
	b.Delete(s.p("/d/k"), -1)
	w.Drain()
	b.Create(s.p("/d/other"), nil, 0, open)
	w.Drain()
	// Another connection of the same kind of watch gets its own copy.
	v := s.raw("V")
	w.GetData(s.p("/d/other"), true)
	v.GetData(s.p("/d/other"), true)
	b.Delete(s.p("/d/other"), -1)
	w.Drain()
	v.Drain()
}

func diffWatchSessionClose(s *sc) {
	o := s.raw("O")
	w := s.raw("W")
	o.Create(s.p("/s"), nil, 0, open)
	o.Create(s.p("/s/e"), nil, 1, open)
	w.GetData(s.p("/s/e"), true)
	w.GetChildren(s.p("/s"), true)
	o.CloseSession()
	o.ExpectClosed()
	w.Drain()
	w.GetChildren2(s.p("/s"), false)

	// Several ephemerals go in one txn; their deletion order is not
	// specified, so those events are compared as a set.
	p := s.raw("P")
	for _, n := range []string{"/s/a", "/s/b", "/s/c"} {
		p.Create(s.p(n), nil, 1, open)
		w.Exists(s.p(n), true)
	}
	p.CloseSession()
	p.ExpectClosed()
	rep, err := w.CallXid(wire.XidPing, wire.OpPing, nil, nil)
	if err != nil {
		w.log("ping -> %s", rawErr(err))
	}
	var evs []string
	zx := map[int64]bool{}
	for _, ev := range rep.Events {
		evs = append(evs, fmt.Sprintf("%s %s", eventName(ev.Type), s.rel(ev.Path)))
		zx[ev.Zxid] = true
	}
	sort.Strings(evs)
	w.log("events (sorted) %v from %d txn(s)", evs, len(zx))
	w.GetChildren2(s.p("/s"), false)
}

func diffWatchGoZK(s *sc) {
	a := s.zk("A")
	b := s.zk("B")
	a.Create(s.p("/g"), nil, 0, open)
	a.ExistsW(s.p("/g/new"))
	a.GetW(s.p("/g"))
	a.ChildrenW(s.p("/g"))
	b.Create(s.p("/g/new"), nil, 0, open)
	a.Drain()
	b.Set(s.p("/g"), []byte("x"), -1)
	a.Drain()
	a.GetW(s.p("/g/new"))
	a.ChildrenW(s.p("/g"))
	b.Delete(s.p("/g/new"), -1)
	a.Drain()
	// A session closing fires watches on another client.
	b.Create(s.p("/g/eph"), nil, 1, open)
	a.ExistsW(s.p("/g/eph"))
	b.Close()
	a.Drain()
	a.Exists(s.p("/g/eph"))
}

func diffWatchPersistent(s *sc) {
	w := s.raw("W")
	b := s.raw("B")
	w.AddWatch(s.p("/p"), wire.AddWatchPersistent)
	b.Create(s.p("/p"), []byte("0"), 0, open)
	b.SetData(s.p("/p"), []byte("1"), -1)
	b.SetData(s.p("/p"), []byte("2"), -1)
	b.Create(s.p("/p/c"), nil, 0, open)
	b.SetData(s.p("/p/c"), []byte("x"), -1) // not recursive: nothing
	b.Create(s.p("/p/c/g"), nil, 0, open)   // grandchild: nothing
	b.Delete(s.p("/p/c/g"), -1)
	b.Delete(s.p("/p/c"), -1)
	b.Delete(s.p("/p"), -1)
	b.Create(s.p("/p"), nil, 0, open) // the watch survives deletion
	w.Drain()
	// A one-shot watch on the same path: one event per change.
	w.GetData(s.p("/p"), true)
	b.SetData(s.p("/p"), []byte("3"), -1)
	w.Drain()
	// Adding it again is fine; a second connection has its own.
	w.AddWatch(s.p("/p"), wire.AddWatchPersistent)
	v := s.raw("V")
	v.AddWatch(s.p("/p"), wire.AddWatchPersistent)
	b.SetData(s.p("/p"), []byte("4"), -1)
	w.Drain()
	v.Drain()
	w.AddWatch(s.p("/bad/"), wire.AddWatchPersistent)
	w.AddWatch(s.p("/mode"), 2)
	w.AddWatch(s.p("/mode"), -1)
	w.AddWatch("", wire.AddWatchPersistent)
	w.State()
}

func diffWatchPersistentRecursive(s *sc) {
	w := s.raw("W")
	b := s.raw("B")
	w.AddWatch(s.p("/r"), wire.AddWatchPersistentRecursive)
	b.Create(s.p("/r"), nil, 0, open)
	b.Create(s.p("/r/a"), nil, 0, open)
	b.Create(s.p("/r/a/b"), nil, 0, open)
	b.SetData(s.p("/r/a/b"), []byte("x"), -1)
	b.Create(s.p("/r2"), nil, 0, open) // sibling with a common prefix
	b.Create(s.p("/r/e-"), nil, 3, open)
	b.Delete(s.p("/r/a/b"), -1)
	b.Multi(wire.OpMulti, "subtree", opCreate(s.p("/r/m"), nil, 0), opSetData(s.p("/r"), nil, -1), opDelete(s.p("/r/m"), -1))
	w.Drain()
	// Recursive plus persistent plus one-shot on one path, one connection.
	w.AddWatch(s.p("/r/a"), wire.AddWatchPersistent)
	w.GetData(s.p("/r/a"), true)
	w.GetChildren(s.p("/r/a"), true)
	b.SetData(s.p("/r/a"), []byte("y"), -1)
	b.Create(s.p("/r/a/z"), nil, 0, open)
	b.Delete(s.p("/r/a/z"), -1)
	b.Delete(s.p("/r/a"), -1)
	w.Drain()
	// A recursive watch on "/" sees this scenario's changes too.
	v := s.raw("V")
	v.AddWatch("/", wire.AddWatchPersistentRecursive)
	b.Create(s.p("/r/root-seen"), nil, 0, open)
	v.Drain()
	v.Watches(wire.OpRemoveWatches, "/", wire.WatcherPersistentRecursive)
	b.Delete(s.p("/r/root-seen"), -1)
	v.Drain()
}

func diffWatchRemoveCheck(s *sc) {
	w := s.raw("W")
	b := s.raw("B")
	b.Create(s.p("/x"), nil, 0, open)
	for _, op := range []wire.Op{wire.OpCheckWatches, wire.OpRemoveWatches} {
		for typ := int32(1); typ <= 5; typ++ {
			w.Watches(op, s.p("/x"), typ)
		}
	}
	w.GetData(s.p("/x"), true)
	w.Watches(wire.OpCheckWatches, s.p("/x"), wire.WatcherData)
	w.Watches(wire.OpCheckWatches, s.p("/x"), wire.WatcherChildren)
	w.Watches(wire.OpCheckWatches, s.p("/x"), wire.WatcherAny)
	w.Watches(wire.OpCheckWatches, s.p("/x"), wire.WatcherPersistent)
	w.Watches(wire.OpRemoveWatches, s.p("/x"), wire.WatcherChildren)
	w.Watches(wire.OpRemoveWatches, s.p("/x"), wire.WatcherData)
	w.Watches(wire.OpCheckWatches, s.p("/x"), wire.WatcherData)
	b.SetData(s.p("/x"), []byte("1"), -1)
	w.Drain()
	w.GetChildren(s.p("/x"), true)
	w.Exists(s.p("/x"), true)
	w.Watches(wire.OpRemoveWatches, s.p("/x"), wire.WatcherAny)
	w.Watches(wire.OpCheckWatches, s.p("/x"), wire.WatcherAny)
	b.Create(s.p("/x/c"), nil, 0, open)
	b.SetData(s.p("/x"), []byte("2"), -1)
	w.Drain()
	w.Exists(s.p("/missing"), true)
	w.Watches(wire.OpCheckWatches, s.p("/missing"), wire.WatcherData)
	w.Watches(wire.OpRemoveWatches, s.p("/missing"), wire.WatcherData)
	b.Create(s.p("/missing"), nil, 0, open)
	w.Drain()
	w.AddWatch(s.p("/x"), wire.AddWatchPersistent)
	w.AddWatch(s.p("/x"), wire.AddWatchPersistentRecursive)
	for typ := int32(1); typ <= 5; typ++ {
		w.Watches(wire.OpCheckWatches, s.p("/x"), typ)
	}
	w.Watches(wire.OpRemoveWatches, s.p("/x"), wire.WatcherPersistent)
	w.Watches(wire.OpCheckWatches, s.p("/x"), wire.WatcherPersistent)
	w.Watches(wire.OpCheckWatches, s.p("/x"), wire.WatcherPersistentRecursive)
	b.SetData(s.p("/x"), []byte("3"), -1)
	w.Drain()
	w.Watches(wire.OpRemoveWatches, s.p("/x"), wire.WatcherAny)
	b.SetData(s.p("/x"), []byte("4"), -1)
	w.Drain()
	w.GetData(s.p("/x"), true)
	w.Watches(wire.OpRemoveWatches, s.p("/x"), 9)
	w.Watches(wire.OpCheckWatches, s.p("/x"), 0)
	w.Watches(wire.OpRemoveWatches, s.p("/x/"), wire.WatcherData)
	w.Watches(wire.OpRemoveWatches, "", wire.WatcherData)
	// Another connection cannot see or remove W's watch.
	v := s.raw("V")
	v.Watches(wire.OpCheckWatches, s.p("/x"), wire.WatcherData)
	v.Watches(wire.OpRemoveWatches, s.p("/x"), wire.WatcherData)
	b.SetData(s.p("/x"), []byte("5"), -1)
	w.Drain()
	w.State()
}

func diffSetWatches(s *sc) {
	b := s.raw("B")
	for _, n := range []string{"/a", "/b", "/d", "/e", "/f"} {
		b.Create(s.p(n), nil, 0, open)
	}
	b.Exists(s.p(""), false)
	before := b.last.Zxid // everything above is older than this
	b.SetData(s.p("/a"), []byte("changed"), -1)
	b.Delete(s.p("/b"), -1)
	b.Create(s.p("/c"), nil, 0, open)
	b.Create(s.p("/d/x"), nil, 0, open)
	w := s.raw("W")
	w.SetWatches(before, s.zx(before),
		[]string{s.p("/a"), s.p("/b"), s.p("/e"), s.p("/c")},
		[]string{s.p("/c"), s.p("/missing"), s.p("/e")},
		[]string{s.p("/d"), s.p("/b"), s.p("/f")})
	// The re-registered watches fire on later changes.
	b.SetData(s.p("/e"), []byte("1"), -1)
	b.Create(s.p("/missing"), nil, 0, open)
	b.Create(s.p("/f/y"), nil, 0, open)
	b.SetData(s.p("/c"), []byte("1"), -1)
	w.Drain()
	// relativeZxid 0 fires for every existing node; special xid -8.
	v := s.raw("V")
	rep, err := v.CallXid(wire.XidSetWatches, wire.OpSetWatches, &wire.SetWatches{
		RelativeZxid: 0, DataWatches: []string{s.p("/e")}, ExistWatches: []string{s.p("/none")},
		ChildWatches: []string{s.p("/f")}}, nil)
	v.logReply("setWatches xid=-8 relativeZxid=0 data=[R/e] exist=[R/none] child=[R/f]", rep, err, nil)
	// A relativeZxid from the future fires nothing for existing nodes.
	u := s.raw("U")
	u.SetWatches(1<<62, "2^62", []string{s.p("/e"), s.p("/gone")}, []string{s.p("/e")}, []string{s.p("/f")})
	b.SetData(s.p("/e"), []byte("2"), -1)
	v.Drain()
	u.Drain()
	u.SetWatches(1<<62, "2^62", []string{s.p("/bad/")}, nil, nil)
	u.SetWatches(0, "0", nil, nil, nil)
	u.State()
}

func diffSetWatches2(s *sc) {
	b := s.raw("B")
	b.Create(s.p("/a"), nil, 0, open)
	b.Exists(s.p(""), false)
	before := b.last.Zxid
	b.SetData(s.p("/a"), []byte("x"), -1)
	w := s.raw("W")
	req := &wire.SetWatches2{
		RelativeZxid:               before,
		DataWatches:                []string{s.p("/a")},
		ExistWatches:               []string{},
		ChildWatches:               []string{},
		PersistentWatches:          []string{s.p("/p"), s.p("/a")},
		PersistentRecursiveWatches: []string{s.p("/r")},
	}
	rep, err := w.CallXid(wire.XidSetWatches, wire.OpSetWatches2, req, nil)
	w.logReply(fmt.Sprintf("setWatches2 relativeZxid=%s data=[R/a] persistent=[R/p R/a] recursive=[R/r]", s.zx(before)), rep, err, nil)
	b.Create(s.p("/p"), nil, 0, open)
	b.Create(s.p("/p/c"), nil, 0, open)
	b.Create(s.p("/r"), nil, 0, open)
	b.Create(s.p("/r/c"), nil, 0, open)
	b.SetData(s.p("/a"), []byte("y"), -1)
	b.SetData(s.p("/a"), []byte("z"), -1)
	w.Drain()
	w.Watches(wire.OpCheckWatches, s.p("/p"), wire.WatcherPersistent)
	w.Watches(wire.OpCheckWatches, s.p("/r"), wire.WatcherPersistentRecursive)
	w.State()
}

// diffNotificationZxid shows the zxid in notification headers, which the
// other scenarios leave out.
func diffNotificationZxid(s *sc) {
	w := s.raw("W")
	w.showEventZxid = true
	b := s.raw("B")
	w.Exists(s.p("/n"), true)
	b.Create(s.p("/n"), nil, 0, open)
	w.Drain()
	w.GetData(s.p("/n"), true)
	w.GetChildren(s.p(""), true)
	b.Multi(wire.OpMulti, "set+delete", opSetData(s.p("/n"), []byte("x"), -1), opDelete(s.p("/n"), -1))
	w.Drain()
	w.AddWatch(s.p("/n"), wire.AddWatchPersistentRecursive)
	b.Create(s.p("/n"), nil, 0, open)
	w.Drain()
	b.Exists(s.p(""), false)
	before := b.last.Zxid
	b.SetData(s.p("/n"), []byte("y"), -1)
	v := s.raw("V")
	v.showEventZxid = true
	v.SetWatches(before, s.zx(before), []string{s.p("/n")}, nil, nil)
}

// diffPersistentThenOneShot sets one-shot watches on a path that already
// has a persistent watch of the same connection.
func diffPersistentThenOneShot(s *sc) {
	w := s.raw("W")
	b := s.raw("B")
	b.Create(s.p("/p"), nil, 0, open)
	w.AddWatch(s.p("/p"), wire.AddWatchPersistent)
	w.GetChildren(s.p("/p"), true)
	w.GetData(s.p("/p"), true)
	b.Create(s.p("/p/a"), nil, 0, open)
	b.Create(s.p("/p/b"), nil, 0, open)
	b.SetData(s.p("/p"), nil, -1)
	b.SetData(s.p("/p"), nil, -1)
	w.Drain()
	w.Watches(wire.OpCheckWatches, s.p("/p"), wire.WatcherAny)
}
