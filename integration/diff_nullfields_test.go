package integration

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/zkraft/zkraft/wire"
)

// Scenarios sending null strings and buffers (jute length -1) where a
// request carries a path or another field a client always fills in: what
// the server answers, and whether the connection and the tree survive.

func init() {
	addScenarios(
		scenario{"null_paths", diffNullPaths},
		scenario{"null_fields", diffNullFields},
	)
}

// nullMark stands for a null string in a record given to withNulls.
const nullMark = "/\x00null-field-mark"

// emptyMark stands for an empty, non-null string in a record given to
// withNulls (for records whose encoder writes "" as null).
const emptyMark = "/\x00empty-field-mark"

// withNulls encodes rec and turns every string equal to nullMark into a
// null string (length -1), and every one equal to emptyMark into "".
func withNulls(rec wire.Record) []byte {
	b := wire.Marshal(rec)
	for mark, with := range map[string][]byte{nullMark: {0xff, 0xff, 0xff, 0xff}, emptyMark: {0, 0, 0, 0}} {
		var m []byte
		m = binary.BigEndian.AppendUint32(m, uint32(len(mark)))
		m = append(m, mark...)
		b = bytes.ReplaceAll(b, m, with)
	}
	return b
}

// nullCase is one request with a null field, sent on its own connection.
type nullCase struct {
	desc string
	op   wire.Op
	body wire.Record
}

func (s *sc) runNullCases(cases []nullCase) {
	var logs []func()
	for i, c := range cases {
		r := s.raw(fmt.Sprintf("N%02d", i))
		logs = append(logs, r.sendAndWatchLater(c.desc, frame(int32(100+i), c.op, withNulls(c.body))))
	}
	for _, logIt := range logs {
		logIt()
	}
}

// diffNullPaths sends every opcode whose request carries a path with that
// path null, alone and inside multi and multiRead.
func diffNullPaths(s *sc) {
	const n = nullMark
	open := wire.OpenACLUnsafe
	setup := s.raw("SETUP")
	setup.Create(s.p("/n"), []byte("n"), 0, open)
	s.runNullCases([]nullCase{
		{"exists", wire.OpExists, &wire.PathWatchRequest{Path: n}},
		{"exists watch", wire.OpExists, &wire.PathWatchRequest{Path: n, Watch: true}},
		{"getData", wire.OpGetData, &wire.PathWatchRequest{Path: n}},
		{"getData watch", wire.OpGetData, &wire.PathWatchRequest{Path: n, Watch: true}},
		{"getACL", wire.OpGetACL, &wire.PathRequest{Path: n}},
		{"getChildren", wire.OpGetChildren, &wire.PathWatchRequest{Path: n}},
		{"getChildren2", wire.OpGetChildren2, &wire.PathWatchRequest{Path: n, Watch: true}},
		{"getAllChildrenNumber", wire.OpGetAllChildrenNumber, &wire.PathRequest{Path: n}},
		{"getEphemerals", wire.OpGetEphemerals, &wire.GetEphemeralsRequest{PrefixPath: n}},
		{"sync", wire.OpSync, &wire.PathRequest{Path: n}},
		{"create", wire.OpCreate, &wire.CreateRequest{Path: n, ACL: open}},
		{"create2", wire.OpCreate2, &wire.CreateRequest{Path: n, ACL: open}},
		{"createContainer", wire.OpCreateContainer, &wire.CreateRequest{Path: n, ACL: open, Flags: 4}},
		{"createTTL", wire.OpCreateTTL, &wire.CreateTTLRequest{Path: n, ACL: open, Flags: 5, TTL: 1000}},
		{"delete", wire.OpDelete, &wire.DeleteRequest{Path: n, Version: -1}},
		{"setData", wire.OpSetData, &wire.SetDataRequest{Path: n, Data: []byte("x"), Version: -1}},
		{"setACL", wire.OpSetACL, &wire.SetACLRequest{Path: n, ACL: open, Version: -1}},
		{"checkWatches", wire.OpCheckWatches, &wire.WatchesRequest{Path: n, Type: 1}},
		{"removeWatches", wire.OpRemoveWatches, &wire.WatchesRequest{Path: n, Type: 1}},
		{"addWatch persistent", wire.OpAddWatch, &wire.AddWatchRequest{Path: n, Mode: 0}},
		{"addWatch recursive", wire.OpAddWatch, &wire.AddWatchRequest{Path: n, Mode: 1}},
		{"multi create", wire.OpMulti, &wire.MultiRequest{Ops: []wire.MultiOp{opCreate(n, nil, 0)}}},
		{"multi delete", wire.OpMulti, &wire.MultiRequest{Ops: []wire.MultiOp{opDelete(n, -1)}}},
		{"multi setData", wire.OpMulti, &wire.MultiRequest{Ops: []wire.MultiOp{opSetData(n, nil, -1)}}},
		{"multi check", wire.OpMulti, &wire.MultiRequest{Ops: []wire.MultiOp{opCheck(n, -1)}}},
		{"multi check after create", wire.OpMulti, &wire.MultiRequest{Ops: []wire.MultiOp{opCreate(s.p("/m"), nil, 0), opCheck(n, -1)}}},
		{"multiRead getData", wire.OpMultiRead, &wire.MultiRequest{Ops: []wire.MultiOp{opGetData(s.p("/n")), opGetData(n)}}},
		{"multiRead getChildren", wire.OpMultiRead, &wire.MultiRequest{Ops: []wire.MultiOp{opGetChildren(n)}}},
	})
	// sync echoes its path: a null one comes back null, not empty.
	sy := s.raw("SYNC")
	if err := sy.WriteRaw(frame(7, wire.OpSync, withNulls(&wire.PathRequest{Path: n}))); err != nil {
		s.abortf("sync: write: %v", err)
	}
	rep, err := sy.ReadReply(7)
	sy.log("sync null path -> %s body=%x err=%v", codeName(rep.Hdr.Err), rep.Body, err)
	setup.GetData(s.p("/n"), false)
	setup.GetChildren(s.root, false)
	setup.GetData("/", false)
}

// diffNullFields sends null strings in the other fields of requests:
// watch lists, auth scheme and data, ACL ids, reconfig strings, tokens.
func diffNullFields(s *sc) {
	const n = nullMark
	p := s.p("/n")
	setup := s.raw("SETUP")
	setup.Create(p, []byte("n"), 0, wire.OpenACLUnsafe)
	nullID := []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: n, ID: "anyone"}}}
	nullIDValue := []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "world", ID: n}}}
	s.runNullCases([]nullCase{
		{"setWatches null data path", wire.OpSetWatches, &wire.SetWatches{DataWatches: []string{n}, ExistWatches: []string{}, ChildWatches: []string{}}},
		{"setWatches null exist path", wire.OpSetWatches, &wire.SetWatches{DataWatches: []string{}, ExistWatches: []string{n}, ChildWatches: []string{}}},
		{"setWatches2 null persistent path", wire.OpSetWatches2, &wire.SetWatches2{DataWatches: []string{}, ExistWatches: []string{}, ChildWatches: []string{}, PersistentWatches: []string{n}, PersistentRecursiveWatches: []string{}}},
		{"auth null scheme", wire.OpAuth, &wire.AuthPacket{Scheme: n, Auth: []byte("u:p")}},
		{"auth digest null auth", wire.OpAuth, &wire.AuthPacket{Scheme: "digest"}},
		{"sasl null token", wire.OpSASL, &wire.SASLRequest{}},
		{"create null acl scheme", wire.OpCreate, &wire.CreateRequest{Path: s.p("/a1"), ACL: nullID}},
		{"create null acl id", wire.OpCreate, &wire.CreateRequest{Path: s.p("/a2"), ACL: nullIDValue}},
		{"create null acl list", wire.OpCreate, &wire.CreateRequest{Path: s.p("/a3")}},
		{"setACL null acl scheme", wire.OpSetACL, &wire.SetACLRequest{Path: p, ACL: nullID, Version: -1}},
		{"setACL null acl list", wire.OpSetACL, &wire.SetACLRequest{Path: p, Version: -1}},
		{"setACL null acl id", wire.OpSetACL, &wire.SetACLRequest{Path: p, ACL: nullIDValue, Version: -1}},
		{"setACL missing node null acl id", wire.OpSetACL, &wire.SetACLRequest{Path: s.p("/none"), ACL: nullIDValue, Version: -1}},
		{"create digest null acl id", wire.OpCreate, &wire.CreateRequest{Path: s.p("/a4"), ACL: []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "digest", ID: n}}}}},
		{"create auth null acl id", wire.OpCreate, &wire.CreateRequest{Path: s.p("/a5"), ACL: []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "auth", ID: n}}}}},
		{"create bad parent null acl id", wire.OpCreate, &wire.CreateRequest{Path: s.p("/none/a6"), ACL: nullIDValue}},
		{"multi create null acl id", wire.OpMulti, &wire.MultiRequest{Ops: []wire.MultiOp{{Type: wire.OpCreate, Record: &wire.CreateRequest{Path: s.p("/a7"), ACL: nullIDValue}}}}},
		{"create null data", wire.OpCreate, &wire.CreateRequest{Path: s.p("/d"), ACL: wire.OpenACLUnsafe}},
		{"setData null data", wire.OpSetData, &wire.SetDataRequest{Path: p, Version: -1}},
		{"reconfig standalone null strings", wire.OpReconfig, &wire.ReconfigRequest{JoiningServers: n, LeavingServers: n, NewMembers: n, CurConfigID: -1}},
	})
	// The handshake with a null password, for a new session and for a
	// reconnect to the setup session.
	for i, c := range []struct {
		desc string
		req  wire.ConnectRequest
	}{
		{"connect new session, null passwd", wire.ConnectRequest{TimeOut: 30000, Passwd: []byte(n)}},
		{"reconnect, null passwd", wire.ConnectRequest{TimeOut: 30000, SessionID: setup.Session.SessionID, Passwd: []byte(n)}},
	} {
		r := s.rawDial(fmt.Sprintf("H%d", i))
		body := withNulls(&c.req)
		if err := r.WriteRaw(append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)); err != nil {
			r.log("%s: write -> %s", c.desc, rawErr(err))
			continue
		}
		frames, closed, err := r.WaitClosed(noEventWithin)
		var shapes []string
		for _, f := range frames {
			shapes = append(shapes, fmt.Sprintf("%dB", len(f.Body)+16))
		}
		r.log("%s -> frames=%v closed=%v err=%v", c.desc, shapes, closed, err)
	}
	setup.GetData(p, false)
	setup.GetData(s.p("/d"), false)
	setup.GetChildren(s.root, false)
}
