package integration

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// Scenarios sending malformed or unexpected input: what the server
// answers and whether it keeps the connection.

func init() {
	addScenarios(
		scenario{"bad_opcodes", diffBadOpcodes},
		scenario{"bad_frames", diffBadFrames},
		scenario{"bad_before_connect", diffBadBeforeConnect},
		scenario{"maxbuffer", diffMaxBuffer},
	)
}

// frame builds a request frame from a header and raw body bytes.
func frame(xid int32, op wire.Op, body []byte) []byte {
	b := make([]byte, 12, 12+len(body))
	binary.BigEndian.PutUint32(b[0:], uint32(8+len(body)))
	binary.BigEndian.PutUint32(b[4:], uint32(xid))
	binary.BigEndian.PutUint32(b[8:], uint32(op))
	return append(b, body...)
}

// sendAndWatch writes b, then logs the reply (if any) and whether the
// server closed the connection.
func (r *rclient) sendAndWatch(desc string, b []byte) { r.sendAndWatchLater(desc, b)() }

// sendAndWatchLater is sendAndWatch in two parts: it writes b and reads
// the reply now, so the server handles the requests of several cases in
// the order they are sent, then watches in the background whether the
// server closes the connection after the reply (noEventWithin, then a
// ping). The func it returns waits for that and logs it all. Calling it
// for each case first and the funcs after lets the cases' watch windows
// pass at once, with the same transcript as one sendAndWatch after
// another.
func (r *rclient) sendAndWatchLater(desc string, b []byte) (logIt func()) {
	if err := r.WriteRaw(b); err != nil {
		if errors.Is(err, errServerClosed) {
			// The server closed while the rest of a large frame was still
			// being written: the same outcome as a close without a reply
			// read afterwards, only sooner, so log it the same way.
			return func() {
				r.log("%s -> no reply", desc)
				r.log("connection: closed")
			}
		}
		return func() { r.log("%s: write -> %s", desc, rawErr(err)) }
	}
	start := time.Now()
	frames, closed, err := r.readUntilReply()
	var ping rawReply
	var pingErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err == nil && !closed {
			var more []rawFrame
			more, closed, err = r.WaitClosed(noEventWithin)
			frames = append(frames, more...)
		}
		if err == nil && !closed {
			ping, pingErr = r.ping()
		}
	}()
	return func() {
		<-done
		if d := time.Since(start); d > time.Second {
			r.s.t.Logf("%s on %s: %s took %v", r.name, r.s.addr, desc, d.Round(time.Millisecond))
		}
		for _, f := range frames {
			r.log("%s -> xid=%d %s zxid=%s body=%dB", desc, f.Hdr.Xid, codeName(f.Hdr.Err), r.s.zx(f.Hdr.Zxid), len(f.Body))
		}
		if len(frames) == 0 {
			r.log("%s -> no reply", desc)
		}
		switch {
		case err != nil:
			r.log("connection: %s", rawErr(err))
		case closed:
			r.log("connection: closed")
		default:
			r.logState(ping, pingErr)
		}
	}
}

// readUntilReply reads frames until a reply (not an event) arrives or the
// server closes the connection.
func (c *rawClient) readUntilReply() (frames []rawFrame, closed bool, err error) {
	for {
		f, err := c.ReadFrame(rawTimeout)
		switch {
		case err == errServerClosed:
			return frames, true, nil
		case err != nil:
			return frames, false, err
		}
		frames = append(frames, f)
		if !f.IsEvent() {
			return frames, false, nil
		}
	}
}

func diffBadOpcodes(s *sc) {
	setup := s.raw("SETUP")
	setup.Create(s.p("/n"), []byte("n"), 0, open)
	setup.Create2(wire.OpCreateContainer, s.p("/box"), nil, 4, open)
	path := (&wire.Encoder{})
	path.String(s.p("/n"))
	pathBody := path.Bytes()
	cases := []struct {
		desc string
		op   wire.Op
		body []byte
	}{
		{"unknown opcode 999", 999, pathBody},
		{"opcode 10 (unassigned)", 10, pathBody},
		{"top-level check", wire.OpCheck, append(append([]byte(nil), pathBody...), 0, 0, 0, 0)},
		{"notification opcode 0", wire.OpNotification, nil},
		{"createSession opcode -10", wire.OpCreateSession, nil},
		{"error opcode -1", wire.OpError, nil},
		{"reconfig in standalone", wire.OpReconfig, wire.Marshal(&wire.ReconfigRequest{CurConfigID: -1})},
		{"sasl garbage", wire.OpSASL, wire.Marshal(&wire.SASLRequest{Token: []byte("junk")})},
		{"deleteContainer raw path", wire.OpDeleteContainer, []byte(s.p("/box"))},
		{"ping with positive xid", wire.OpPing, nil},
		{"getData with trailing bytes", wire.OpGetData, append(wire.Marshal(&wire.PathWatchRequest{Path: s.p("/n")}), 1, 2, 3)},
		{"getData truncated body", wire.OpGetData, pathBody[:len(pathBody)-2]},
		{"getData path longer than frame", wire.OpGetData, []byte{0, 0, 0x10, 0, 'x'}},
		{"getData negative path length", wire.OpGetData, []byte{0xff, 0xff, 0xff, 0xf0, 0}},
		{"create empty body", wire.OpCreate, nil},
		{"create ACL count huge", wire.OpCreate, append(append([]byte(nil), pathBody...), 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff)},
		{"setData null path", wire.OpSetData, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}},
		{"multi without terminator", wire.OpMulti, []byte{0, 0, 0, 2, 0, 0xff, 0xff, 0xff, 0xff}},
		{"setWatches with null lists", wire.OpSetWatches, wire.Marshal(&wire.SetWatches{})},
		{"getChildren2 with watch byte 7", wire.OpGetChildren2, append(append([]byte(nil), pathBody...), 7)},
	}
	var logs []func()
	for i, c := range cases {
		r := s.raw(fmt.Sprintf("C%02d", i))
		logs = append(logs, r.sendAndWatchLater(c.desc, frame(int32(100+i), c.op, c.body)))
	}
	for _, logIt := range logs {
		logIt()
	}
	setup.GetData(s.p("/n"), false)
	setup.Exists(s.p("/box"), false)
}

func diffBadFrames(s *sc) {
	lengths := []struct {
		desc string
		b    []byte
	}{
		{"negative length", []byte{0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 1}},
		{"length -1", []byte{0xff, 0xff, 0xff, 0xff}},
		{"length maxbuffer+1", []byte{0x00, 0x10, 0x00, 0x00}},
		{"length 2^31-1", []byte{0x7f, 0xff, 0xff, 0xff}},
		{"length 0", []byte{0, 0, 0, 0}},
		{"length 4, header cut", []byte{0, 0, 0, 4, 0, 0, 0, 1}},
		{"four-letter word after handshake", []byte("ruok")},
		{"garbage", []byte("\x00\x00\x00\x0cGARBAGEBYTES")},
	}
	for i, c := range lengths {
		r := s.raw(fmt.Sprintf("F%d", i))
		r.sendAndWatch(c.desc, c.b)
	}
	// A frame cut short: the server waits for the rest.
	r := s.raw("CUT")
	r.WriteRaw([]byte{0, 0, 0, 100, 0, 0, 0, 1})
	r.log("frame announced 100 bytes, sent 4")
	frames, closed, err := r.WaitClosed(noEventWithin)
	r.log("-> %d frames closed=%v err=%v", len(frames), closed, err)
	r.Close() // the cleanup's closeSession would only complete the frame
}

func diffBadBeforeConnect(s *sc) {
	cases := []struct {
		desc string
		b    []byte
	}{
		{"getData before connect", wire.AppendFrame(nil, &wire.RequestHeader{Xid: 1, Type: wire.OpGetData}, &wire.PathWatchRequest{Path: "/"})},
		{"ping before connect", wire.AppendFrame(nil, &wire.RequestHeader{Xid: wire.XidPing, Type: wire.OpPing})},
		{"short connect frame", []byte{0, 0, 0, 3, 1, 2, 3}},
		{"empty connect frame", []byte{0, 0, 0, 0}},
		{"negative length first", []byte{0xff, 0xff, 0xff, 0xfe}},
		{"oversized length first", []byte{0x00, 0x10, 0x00, 0x00}},
		{"connect with bad passwd length", []byte{0, 0, 0, 28, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x27, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 0, 0, 0}},
		{"unknown four-letter word", []byte("abcd")},
		{"http request", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")},
	}
	for i, c := range cases {
		r := s.rawDial(fmt.Sprintf("P%d", i))
		if err := r.WriteRaw(c.b); err != nil {
			r.log("%s: write -> %s", c.desc, rawErr(err))
			continue
		}
		frames, closed, err := r.WaitClosed(rawTimeout)
		var shapes []string
		for _, f := range frames {
			shapes = append(shapes, fmt.Sprintf("%dB", len(f.Body)+16))
		}
		r.log("%s -> frames=[%s] closed=%v err=%v", c.desc, strings.Join(shapes, " "), closed, err)
	}
}

func diffMaxBuffer(s *sc) {
	const max = wire.DefaultMaxBuffer
	path := s.p("/big")
	setup := s.raw("SETUP")
	setup.Create(path, nil, 0, open)
	// setData frame: header 8 + path (4+len) + data (4+len) + version 4.
	fit := max - 8 - (4 + len(path)) - 4 - 4
	for _, c := range []struct {
		desc string
		n    int
	}{
		{"setData, frame = maxbuffer", fit},
		{"setData, frame = maxbuffer+1", fit + 1},
		{"setData, data = maxbuffer", max},
		{"setData, data = maxbuffer+1", max + 1},
	} {
		r := s.raw(c.desc[:len("setData, ")+4])
		data := make([]byte, c.n)
		for i := range data {
			data[i] = byte('a' + i%26)
		}
		b := wire.AppendFrame(nil, &wire.RequestHeader{Xid: 1, Type: wire.OpSetData}, &wire.SetDataRequest{Path: path, Data: data, Version: -1})
		r.log("%s: frame length %d (data %d)", c.desc, len(b)-4, c.n)
		r.sendAndWatch(c.desc, b)
	}
	setup.GetData(path, false)
	// create with data close to the limit; reply frames may exceed it.
	r := s.raw("CREATE")
	cfit := max - 8 - (4 + len(path) + 2) - 4 - (4 + 4 + 5 + 4 + 6) - 4
	r.Create(path+"/c", make([]byte, cfit), 0, open)
	r.GetData(path+"/c", false)
	r.Multi(wire.OpMultiRead, "two big reads", opGetData(path), opGetData(path+"/c"))
	r.State()
}
