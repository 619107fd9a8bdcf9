package integration

import (
	"github.com/zkraft/zkraft/wire"
)

// Scenarios about the handshake, session lifetime and session-scoped
// reads (getEphemerals, getAllChildrenNumber, sync).

func init() {
	addScenarios(
		scenario{"handshake", diffHandshake},
		scenario{"reconnect", diffReconnect},
		scenario{"close_session", diffCloseSession},
		scenario{"ephemerals", diffGetEphemerals},
		scenario{"all_children_number", diffAllChildrenNumber},
		scenario{"sync", diffSync},
	)
}

func newSession(timeout int32) wire.ConnectRequest {
	return wire.ConnectRequest{TimeOut: timeout, Passwd: make([]byte, 16)}
}

func diffHandshake(s *sc) {
	for i, req := range []wire.ConnectRequest{
		newSession(10000),
		{TimeOut: 10000, Passwd: make([]byte, 16), HasReadOnly: true},
		{TimeOut: 10000, Passwd: make([]byte, 16), HasReadOnly: true, ReadOnly: true},
		newSession(1000),
		newSession(100000),
		newSession(0),
		newSession(-5),
		{TimeOut: 10000},                       // null password
		{TimeOut: 10000, Passwd: []byte("xy")}, // short password
		{ProtocolVersion: 7, TimeOut: 10000, Passwd: make([]byte, 16)},
	} {
		c := s.rawDial(string(rune('A' + i)))
		c.Handshake(req)
		c.State()
	}
	// A client that has seen a zxid the server has not: no session.
	f := s.rawDial("FUTURE")
	f.Handshake(wire.ConnectRequest{LastZxidSeen: 1 << 60, TimeOut: 10000, Passwd: make([]byte, 16)})
	f.ExpectClosed()
}

func diffReconnect(s *sc) {
	a := s.raw("A")
	a.Create(s.p("/e"), nil, 1, open)
	a.GetData(s.p("/e"), true)
	id, pw := a.Session.SessionID, a.Session.Passwd

	// Same session, right password, from a second socket: the first
	// socket is closed by the server and the watch does not move.
	b := s.rawDial("B")
	b.Handshake(wire.ConnectRequest{LastZxidSeen: a.last.Zxid, TimeOut: 10000, SessionID: id, Passwd: pw})
	a.ExpectClosed()
	b.GetData(s.p("/e"), false)
	b.Exists(s.p("/e"), false)

	// Wrong password: expired answer, then the socket closes. The
	// server closes the session's other connections (B) first.
	bad := append([]byte(nil), pw...)
	bad[0] ^= 0xff
	c := s.rawDial("C")
	c.Handshake(wire.ConnectRequest{TimeOut: 10000, SessionID: id, Passwd: bad})
	c.ExpectClosed()
	b.State()

	// Unknown session id.
	d := s.rawDial("D")
	d.Handshake(wire.ConnectRequest{TimeOut: 10000, SessionID: id ^ 0x5555, Passwd: pw})
	d.ExpectClosed()

	// The session survived both: reattach, then close it; after that
	// the id is gone.
	b2 := s.rawDial("B2")
	b2.Handshake(wire.ConnectRequest{TimeOut: 10000, SessionID: id, Passwd: pw})
	b2.Exists(s.p("/e"), false)
	b2.CloseSession()
	b2.ExpectClosed()
	e := s.rawDial("E")
	e.Handshake(wire.ConnectRequest{TimeOut: 10000, SessionID: id, Passwd: pw})
	e.ExpectClosed()
	f := s.raw("F")
	f.Exists(s.p("/e"), false)
}

func diffCloseSession(s *sc) {
	a := s.raw("A")
	w := s.raw("W")
	a.Create(s.p("/e1"), nil, 1, open)
	a.Create(s.p("/p"), nil, 0, open)
	w.Exists(s.p("/e1"), true)
	a.CloseSession()
	a.ExpectClosed()
	w.Drain()
	w.Exists(s.p("/e1"), false)

	// closeSession from a second connection of the same session.
	b := s.raw("B")
	b.Create(s.p("/e2"), nil, 1, open)
	b2 := s.rawDial("B2")
	b2.Handshake(wire.ConnectRequest{TimeOut: 10000, SessionID: b.Session.SessionID, Passwd: b.Session.Passwd})
	b.ExpectClosed()
	b2.CloseSession()
	b2.ExpectClosed()
	w.Exists(s.p("/e2"), false)

	// Closing the socket without closeSession keeps the session (and its
	// ephemerals) until it expires.
	d := s.raw("D")
	d.Create(s.p("/e3"), nil, 1, open)
	d.Close()
	w.Exists(s.p("/e3"), false)
}

func diffGetEphemerals(s *sc) {
	a := s.raw("A")
	b := s.raw("B")
	a.GetEphemerals("")
	a.Create(s.p("/e"), nil, 0, open)
	for _, n := range []string{"/e/1", "/e/10", "/e/2", "/e1", "/x"} {
		a.Create(s.p(n), nil, 1, open)
	}
	a.Create(s.p("/e/s-"), nil, 3, open)
	b.Create(s.p("/e/b"), nil, 1, open)
	for _, prefix := range []string{s.p(""), s.p("/e"), s.p("/e/"), s.p("/e/1"), s.p("/e1"), s.p("/none"), s.p("/x"), s.root[:3]} {
		a.GetEphemerals(prefix)
	}
	b.GetEphemerals(s.p(""))
	a.Delete(s.p("/e/1"), -1)
	a.GetEphemerals(s.p("/e"))
	c := s.raw("C")
	c.GetEphemerals("/")
	c.GetEphemerals("")
	c.GetEphemerals("relative")
}

func diffAllChildrenNumber(s *sc) {
	a := s.raw("A")
	a.GetAllChildrenNumber(s.p(""))
	for _, n := range []string{"/a", "/a/b", "/a/b/c", "/a/d", "/e"} {
		a.Create(s.p(n), nil, 0, open)
	}
	a.Create(s.p("/a/eph"), nil, 1, open)
	a.GetAllChildrenNumber(s.p(""))
	a.GetAllChildrenNumber(s.p("/a"))
	a.GetAllChildrenNumber(s.p("/a/b/c"))
	a.GetAllChildrenNumber(s.p("/none"))
	a.GetAllChildrenNumber("/zookeeper")
	a.GetAllChildrenNumber(s.p("/a/"))
	a.codeOnly(`getAllChildrenNumber ""`, wire.OpGetAllChildrenNumber, &wire.PathRequest{Path: ""})
}

func diffSync(s *sc) {
	g := s.zk("G")
	g.Create(s.p("/n"), nil, 0, open)
	g.Sync(s.p("/n"))
	g.Sync(s.p("/none"))
	g.Sync("/")
	a := s.raw("A")
	a.Sync(s.p("/n"))
	a.Sync(s.p("/none"))
	a.Sync("relative")
	a.Sync("")
	a.Sync(s.p("/n/"))
	a.State()
}
