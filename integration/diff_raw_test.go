package integration

import (
	"errors"
	"fmt"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// rclient is a raw protocol connection whose calls are logged.
type rclient struct {
	s    *sc
	name string
	*rawClient
	last wire.ReplyHeader // header of the last reply logged

	showEventZxid bool // log the zxid of notifications
}

// rawDial opens a raw connection without the handshake.
func (s *sc) rawDial(name string) *rclient {
	c, err := dialRaw(s.addr)
	if err != nil {
		s.abortf("%s: dial: %v", name, err)
	}
	r := &rclient{s: s, name: name, rawClient: c}
	s.onCleanup(func() {
		defer c.Close()
		if c.Session.SessionID == 0 || c.Session.TimeOut <= 0 {
			return
		}
		if !c.Closed() {
			if rep, err := c.CloseSession(); err == nil && rep.Hdr.Err == wire.CodeOK {
				return
			}
		}
		// The socket is gone but the session may live on until it
		// expires, in the middle of a later scenario: end it now.
		endSession(s.addr, c.Session.SessionID, c.Session.Passwd)
	})
	return r
}

// endSession reattaches to a session and closes it; an expired or unknown
// session is left alone.
func endSession(addr string, id int64, passwd []byte) {
	c, err := dialRaw(addr)
	if err != nil {
		return
	}
	defer c.Close()
	resp, err := c.Handshake(wire.ConnectRequest{TimeOut: 10000, SessionID: id, Passwd: passwd})
	if err == nil && resp.TimeOut > 0 {
		c.CloseSession()
	}
}

// raw opens a raw connection with a new 30 s session and logs the
// handshake.
func (s *sc) raw(name string) *rclient {
	r := s.rawDial(name)
	r.Handshake(wire.ConnectRequest{TimeOut: 30000, Passwd: make([]byte, 16)})
	if r.Session.SessionID == 0 {
		s.abortf("%s: no session", name)
	}
	return r
}

// Handshake sends a ConnectRequest and logs the response shape.
func (r *rclient) Handshake(req wire.ConnectRequest) {
	resp, err := r.rawClient.Handshake(req)
	last := "far-future"
	if req.LastZxidSeen < 1<<48 {
		last = r.s.zx(req.LastZxidSeen)
	}
	desc := fmt.Sprintf("connect timeOut=%d session=%s lastZxid=%s readOnlyByte=%v", req.TimeOut,
		r.s.sid(req.SessionID), last, req.HasReadOnly)
	if err != nil {
		r.log("%s -> %s", desc, rawErr(err))
		return
	}
	ro := "absent"
	if resp.HasReadOnly {
		ro = fmt.Sprint(resp.ReadOnly)
	}
	zero := true
	for _, b := range resp.Passwd {
		zero = zero && b == 0
	}
	r.log("%s -> protocolVersion=%d timeOut=%d session=%s passwd=%dB(zero=%v) readOnly=%s", desc,
		resp.ProtocolVersion, resp.TimeOut, r.s.sid(resp.SessionID), len(resp.Passwd), zero, ro)
}

func (r *rclient) log(format string, args ...any) {
	r.s.logf(r.name+" "+format, args...)
}

func rawErr(err error) string {
	switch {
	case errors.Is(err, errServerClosed):
		return "connection closed"
	case errors.Is(err, errNoFrame):
		return "no reply"
	}
	return "error: " + err.Error()
}

// logEvents logs notifications received before a reply. The zxid in a
// notification's header is shown only by clients with showEventZxid set
// (ZooKeeper 3.8 always sends -1, 3.9 the txn's zxid; the scenario
// notification_zxid compares it once instead of on every event).
func (r *rclient) logEvents(evs []rawEvent) {
	for _, ev := range evs {
		if r.showEventZxid {
			r.log("<- %s %s zxid=%s state=%d", eventName(ev.Type), r.s.rel(ev.Path), r.s.zx(ev.Zxid), ev.State)
		} else {
			r.log("<- %s %s state=%d", eventName(ev.Type), r.s.rel(ev.Path), ev.State)
		}
	}
}

// call sends a request and logs the events before the reply and the reply:
// its code, its zxid and, on success, show(). It returns the reply code,
// or CodeConnectionLoss when no reply came.
func (r *rclient) call(desc string, op wire.Op, req, resp wire.Record, show func() string) wire.Code {
	rep, err := r.Call(op, req, resp)
	return r.logReply(desc, rep, err, show)
}

func (r *rclient) logReply(desc string, rep rawReply, err error, show func() string) wire.Code {
	r.logEvents(rep.Events)
	if err != nil {
		r.log("%s -> %s", desc, rawErr(err))
		return wire.CodeConnectionLoss
	}
	r.last = rep.Hdr
	line := fmt.Sprintf("%s -> %s zxid=%s", desc, codeName(rep.Hdr.Err), r.s.zx(rep.Hdr.Zxid))
	if rep.Hdr.Err == wire.CodeOK && show != nil {
		line += " " + show()
	} else if rep.Hdr.Err != wire.CodeOK && len(rep.Body) > 0 {
		line += fmt.Sprintf(" body=%dB", len(rep.Body))
	}
	r.log("%s", line)
	return rep.Hdr.Err
}

// State logs whether the connection is still open: a ping is answered, or
// the server has closed the socket. Call it only after reading the replies
// one expects, since unread data may be lost on a reset.
func (r *rclient) State() { r.logState(r.ping()) }

// ping sends a ping and reads its reply, or errServerClosed at once if
// the connection is known to be closed.
func (r *rclient) ping() (rawReply, error) {
	if r.Closed() {
		return rawReply{}, errServerClosed
	}
	return r.CallXid(wire.XidPing, wire.OpPing, nil, nil)
}

// logState logs the events before a ping's reply and, from the reply,
// whether the connection is open.
func (r *rclient) logState(rep rawReply, err error) {
	r.logEvents(rep.Events)
	switch {
	case err == nil:
		r.log("connection: open")
	case errors.Is(err, errServerClosed):
		r.log("connection: closed")
	default:
		r.log("connection: %s", rawErr(err))
	}
}

// ExpectClosed waits up to rawTimeout for the server to close the
// connection and logs any frames that arrived first.
func (r *rclient) ExpectClosed() {
	frames, closed, err := r.WaitClosed(rawTimeout)
	for _, f := range frames {
		if f.IsEvent() {
			ev, _ := f.Event()
			r.logEvents([]rawEvent{{Zxid: f.Hdr.Zxid, WatcherEvent: ev}})
			continue
		}
		r.log("unexpected frame xid=%d zxid=%s err=%s body=%dB", f.Hdr.Xid, r.s.zx(f.Hdr.Zxid), codeName(f.Hdr.Err), len(f.Body))
	}
	switch {
	case err != nil:
		r.log("connection: %s", rawErr(err))
	case closed:
		r.log("connection: closed")
	default:
		r.log("connection: still open after %v", rawTimeout)
	}
}

// Ping logs the events a ping round trip drains.
func (r *rclient) Drain() {
	rep, err := r.CallXid(wire.XidPing, wire.OpPing, nil, nil)
	r.logEvents(rep.Events)
	if err != nil {
		r.log("ping -> %s", rawErr(err))
	} else if len(rep.Events) == 0 {
		r.log("no events")
	}
}

// Typed helpers. Each logs one line (plus preceding events).

func (r *rclient) Create(path string, data []byte, flags int32, acl []wire.ACL) wire.Code {
	var resp wire.CreateResponse
	return r.call(fmt.Sprintf("create %s flags=%d", r.s.rel(path), flags), wire.OpCreate,
		&wire.CreateRequest{Path: path, Data: data, ACL: acl, Flags: flags}, &resp,
		func() string { return r.s.rel(resp.Path) })
}

func (r *rclient) Create2(op wire.Op, path string, data []byte, flags int32, acl []wire.ACL) wire.Code {
	var resp wire.Create2Response
	return r.call(fmt.Sprintf("%s %s flags=%d", op, r.s.rel(path), flags), op,
		&wire.CreateRequest{Path: path, Data: data, ACL: acl, Flags: flags}, &resp,
		func() string { return r.s.rel(resp.Path) + " " + r.s.stat(&resp.Stat) })
}

func (r *rclient) CreateTTL(op wire.Op, path string, flags int32, ttl int64) wire.Code {
	var resp wire.Create2Response
	return r.call(fmt.Sprintf("%s %s flags=%d ttl=%d", op, r.s.rel(path), flags, ttl), op,
		&wire.CreateTTLRequest{Path: path, ACL: wire.OpenACLUnsafe, Flags: flags, TTL: ttl}, &resp,
		func() string { return r.s.rel(resp.Path) + " " + r.s.stat(&resp.Stat) })
}

func (r *rclient) Delete(path string, version int32) wire.Code {
	return r.call(fmt.Sprintf("delete %s version=%d", r.s.rel(path), version), wire.OpDelete,
		&wire.DeleteRequest{Path: path, Version: version}, nil, nil)
}

func (r *rclient) SetData(path string, data []byte, version int32) wire.Code {
	var resp wire.StatResponse
	return r.call(fmt.Sprintf("setData %s %s version=%d", r.s.rel(path), quote(data), version), wire.OpSetData,
		&wire.SetDataRequest{Path: path, Data: data, Version: version}, &resp,
		func() string { return r.s.stat(&resp.Stat) })
}

func (r *rclient) Exists(path string, watch bool) wire.Code {
	var resp wire.StatResponse
	return r.call(fmt.Sprintf("exists %s watch=%v", r.s.rel(path), watch), wire.OpExists,
		&wire.PathWatchRequest{Path: path, Watch: watch}, &resp,
		func() string { return r.s.stat(&resp.Stat) })
}

func (r *rclient) GetData(path string, watch bool) wire.Code {
	var resp wire.GetDataResponse
	return r.call(fmt.Sprintf("getData %s watch=%v", r.s.rel(path), watch), wire.OpGetData,
		&wire.PathWatchRequest{Path: path, Watch: watch}, &resp,
		func() string { return quote(resp.Data) + " " + r.s.stat(&resp.Stat) })
}

func (r *rclient) GetChildren(path string, watch bool) wire.Code {
	var resp wire.GetChildrenResponse
	return r.call(fmt.Sprintf("getChildren %s watch=%v", r.s.rel(path), watch), wire.OpGetChildren,
		&wire.PathWatchRequest{Path: path, Watch: watch}, &resp,
		func() string { return fmt.Sprint(sorted(resp.Children)) })
}

func (r *rclient) GetChildren2(path string, watch bool) wire.Code {
	var resp wire.GetChildren2Response
	return r.call(fmt.Sprintf("getChildren2 %s watch=%v", r.s.rel(path), watch), wire.OpGetChildren2,
		&wire.PathWatchRequest{Path: path, Watch: watch}, &resp,
		func() string { return fmt.Sprintf("%v %s", sorted(resp.Children), r.s.stat(&resp.Stat)) })
}

func (r *rclient) GetACL(path string) wire.Code {
	var resp wire.GetACLResponse
	return r.call("getACL "+r.s.rel(path), wire.OpGetACL, &wire.PathRequest{Path: path}, &resp,
		func() string { return acls(resp.ACL) + " " + r.s.stat(&resp.Stat) })
}

func (r *rclient) SetACL(path string, acl []wire.ACL, version int32) wire.Code {
	var resp wire.StatResponse
	return r.call(fmt.Sprintf("setACL %s %s version=%d", r.s.rel(path), acls(acl), version), wire.OpSetACL,
		&wire.SetACLRequest{Path: path, ACL: acl, Version: version}, &resp,
		func() string { return r.s.stat(&resp.Stat) })
}

func (r *rclient) AddWatch(path string, mode int32) wire.Code {
	var resp wire.ErrorResponse
	return r.call(fmt.Sprintf("addWatch %s mode=%d", r.s.rel(path), mode), wire.OpAddWatch,
		&wire.AddWatchRequest{Path: path, Mode: mode}, &resp,
		func() string { return "err=" + codeName(resp.Err) })
}

func (r *rclient) Watches(op wire.Op, path string, typ int32) wire.Code {
	return r.call(fmt.Sprintf("%s %s type=%d", op, r.s.rel(path), typ), op,
		&wire.WatchesRequest{Path: path, Type: typ}, nil, nil)
}

func (r *rclient) Auth(xid int32, scheme, auth string) wire.Code {
	rep, err := r.CallXid(xid, wire.OpAuth, &wire.AuthPacket{Scheme: scheme, Auth: []byte(auth)}, nil)
	return r.logReply(fmt.Sprintf("auth xid=%d %s %q", xid, scheme, auth), rep, err, nil)
}

func (r *rclient) WhoAmI() wire.Code {
	var resp wire.WhoAmIResponse
	return r.call("whoAmI", wire.OpWhoAmI, nil, &resp, func() string {
		parts := make([]string, len(resp.ClientInfo))
		for i, ci := range resp.ClientInfo {
			parts[i] = ci.AuthScheme + ":" + ci.User
		}
		// ZooKeeper keeps auth ids in a hash set: the order is not
		// meaningful, so it is sorted.
		return fmt.Sprint(sorted(parts))
	})
}

func (r *rclient) GetEphemerals(prefix string) wire.Code {
	var resp wire.GetEphemeralsResponse
	return r.call(fmt.Sprintf("getEphemerals %q", r.s.rel(prefix)), wire.OpGetEphemerals,
		&wire.GetEphemeralsRequest{PrefixPath: prefix}, &resp, func() string {
			out := make([]string, len(resp.Ephemerals))
			for i, p := range resp.Ephemerals {
				out[i] = r.s.rel(p)
			}
			return fmt.Sprint(sorted(out))
		})
}

func (r *rclient) GetAllChildrenNumber(path string) wire.Code {
	var resp wire.GetAllChildrenNumberResponse
	return r.call("getAllChildrenNumber "+r.s.rel(path), wire.OpGetAllChildrenNumber,
		&wire.PathRequest{Path: path}, &resp, func() string { return fmt.Sprint(resp.TotalNumber) })
}

func (r *rclient) Sync(path string) wire.Code {
	var resp wire.PathResponse
	return r.call("sync "+r.s.rel(path), wire.OpSync, &wire.PathRequest{Path: path}, &resp,
		func() string { return r.s.rel(resp.Path) })
}

// Multi sends multi (14) or multiRead (22) and logs every result.
func (r *rclient) Multi(op wire.Op, desc string, ops ...wire.MultiOp) wire.Code {
	var resp wire.MultiResponse
	code := r.call(fmt.Sprintf("%s %s", op, desc), op, &wire.MultiRequest{Ops: ops}, &resp,
		func() string { return fmt.Sprintf("%d results", len(resp.Results)) })
	if code != wire.CodeOK {
		return code
	}
	for i, res := range resp.Results {
		line := fmt.Sprintf("  [%d] %s", i, res.Type)
		switch res.Type {
		case wire.OpError:
			line += " " + codeName(res.Err)
		case wire.OpCreate:
			line += " " + r.s.rel(res.Path)
		case wire.OpCreate2:
			line += " " + r.s.rel(res.Path) + " " + r.s.stat(&res.Stat)
		case wire.OpSetData:
			line += " " + r.s.stat(&res.Stat)
		case wire.OpGetData:
			line += " " + quote(res.Data) + " " + r.s.stat(&res.Stat)
		case wire.OpGetChildren:
			line += fmt.Sprint(" ", sorted(res.Children))
		}
		r.log("%s", line)
	}
	return code
}

// SetWatches sends setWatches (101) with a positive xid, as go-zk does.
// Nil lists are sent empty, as every client does (ZooKeeper 3.8 fails a
// null vector with MARSHALLINGERROR).
func (r *rclient) SetWatches(rel int64, relDesc string, data, exist, child []string) wire.Code {
	data, exist, child = nonNil(data), nonNil(exist), nonNil(child)
	return r.call(fmt.Sprintf("setWatches relativeZxid=%s data=%v exist=%v child=%v", relDesc,
		r.rels(data), r.rels(exist), r.rels(child)), wire.OpSetWatches,
		&wire.SetWatches{RelativeZxid: rel, DataWatches: data, ExistWatches: exist, ChildWatches: child}, nil, nil)
}

func (r *rclient) rels(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = r.s.rel(p)
	}
	return out
}

// Convenience constructors for multi ops.

func opCreate(path string, data []byte, flags int32) wire.MultiOp {
	return wire.MultiOp{Type: wire.OpCreate, Record: &wire.CreateRequest{Path: path, Data: data, ACL: wire.OpenACLUnsafe, Flags: flags}}
}

func opCreate2(path string, flags int32) wire.MultiOp {
	return wire.MultiOp{Type: wire.OpCreate2, Record: &wire.CreateRequest{Path: path, ACL: wire.OpenACLUnsafe, Flags: flags}}
}

func opDelete(path string, version int32) wire.MultiOp {
	return wire.MultiOp{Type: wire.OpDelete, Record: &wire.DeleteRequest{Path: path, Version: version}}
}

func opSetData(path string, data []byte, version int32) wire.MultiOp {
	return wire.MultiOp{Type: wire.OpSetData, Record: &wire.SetDataRequest{Path: path, Data: data, Version: version}}
}

func opCheck(path string, version int32) wire.MultiOp {
	return wire.MultiOp{Type: wire.OpCheck, Record: &wire.CheckVersionRequest{Path: path, Version: version}}
}

func opGetData(path string) wire.MultiOp {
	return wire.MultiOp{Type: wire.OpGetData, Record: &wire.PathWatchRequest{Path: path}}
}

func opGetChildren(path string) wire.MultiOp {
	return wire.MultiOp{Type: wire.OpGetChildren, Record: &wire.PathWatchRequest{Path: path}}
}

// noEventWithin is used only where a test must show that nothing arrives
// on a connection that cannot send a request (for example before the
// handshake); everywhere else Drain's ping round trip is used.
const noEventWithin = 300 * time.Millisecond

// CloseSession sends closeSession and logs the reply.
func (r *rclient) CloseSession() wire.Code {
	rep, err := r.rawClient.CloseSession()
	return r.logReply("closeSession", rep, err, nil)
}

// codeOnly sends a request and logs only the reply code and zxid, for
// replies whose body depends on state outside the scenario.
func (r *rclient) codeOnly(desc string, op wire.Op, req wire.Record) wire.Code {
	return r.call(desc, op, req, nil, func() string { return "(body not compared)" })
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
