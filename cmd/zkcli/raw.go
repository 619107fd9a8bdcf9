package main

import (
	"fmt"
	"net"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// rawSession is a minimal session of zkcli's own, for the requests
// go-zookeeper v1.0.4 does not offer (getEphemerals, getAllChildrenNumber).
// It speaks the protocol with zkraft's wire records: handshake, the
// credentials, one request at a time, then closeSession.
type rawSession struct {
	nc  net.Conn
	xid int32
	buf []byte
}

// dialRaw opens a raw session on server and adds the client's credentials.
func (c *client) dialRaw() (*rawSession, error) {
	nc, err := net.DialTimeout("tcp", c.server, c.timeout)
	if err != nil {
		return nil, fmt.Errorf("Unable to connect to %s: %v", c.server, err)
	}
	s := &rawSession{nc: nc}
	nc.SetDeadline(time.Now().Add(c.timeout))
	req := &wire.ConnectRequest{TimeOut: int32(c.timeout / time.Millisecond), Passwd: make([]byte, 16)}
	var resp wire.ConnectResponse
	if err := s.send(req); err == nil {
		err = s.recv(nil, &resp)
	}
	if err != nil || resp.TimeOut == 0 {
		nc.Close()
		return nil, fmt.Errorf("Unable to connect to %s: no session (%v)", c.server, err)
	}
	for _, a := range c.credentials() {
		err := s.send(&wire.RequestHeader{Xid: wire.XidAuth, Type: wire.OpAuth},
			&wire.AuthPacket{Scheme: a.scheme, Auth: a.auth})
		var hdr wire.ReplyHeader
		if err == nil {
			err = s.recv(&hdr, nil)
		}
		if err == nil && hdr.Err != wire.CodeOK {
			err = hdr.Err
		}
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("addauth %s: %v", a.scheme, err)
		}
	}
	return s, nil
}

// send writes one frame holding recs.
func (s *rawSession) send(recs ...wire.Record) error {
	_, err := s.nc.Write(wire.AppendFrame(nil, recs...))
	return err
}

// recv reads one frame into hdr (if not nil) then body (if not nil).
func (s *rawSession) recv(hdr *wire.ReplyHeader, body wire.Record) error {
	b, err := wire.ReadFrame(s.nc, 0, s.buf)
	if err != nil {
		return err
	}
	s.buf = b
	d := wire.NewDecoder(b, 0)
	if hdr != nil {
		hdr.Decode(d)
		if d.Err() == nil && hdr.Err != wire.CodeOK {
			return nil // no body follows an error
		}
	}
	if body != nil {
		body.Decode(d)
	}
	return d.Err()
}

// call sends one request and decodes its reply into resp, skipping
// notifications; a server error is returned as a keeperError on path.
func (s *rawSession) call(op wire.Op, req, resp wire.Record, path string) error {
	s.xid++
	if err := s.send(&wire.RequestHeader{Xid: s.xid, Type: op}, req); err != nil {
		return err
	}
	for {
		var hdr wire.ReplyHeader
		if err := s.recv(&hdr, resp); err != nil {
			return err
		}
		if hdr.Xid != s.xid {
			continue // a notification or ping reply
		}
		if hdr.Err != wire.CodeOK {
			return &keeperError{hdr.Err, path}
		}
		return nil
	}
}

// close ends the session and the connection.
func (s *rawSession) close() {
	s.xid++
	if s.send(&wire.RequestHeader{Xid: s.xid, Type: wire.OpCloseSession}) == nil {
		var hdr wire.ReplyHeader
		s.recv(&hdr, nil)
	}
	s.nc.Close()
}

// cmdGetEphemerals is "getEphemerals [path]": the session's ephemeral
// nodes whose paths start with path, as Java prints a List. In one-shot
// mode the request goes on a raw session (which has none); in an
// interactive session sessionEphemerals finds them.
func cmdGetEphemerals(c *client, o *options) error {
	prefix := "/"
	if len(o.args) > 1 {
		prefix = o.args[1]
	}
	if err := validatePath(prefix); err != nil {
		return err
	}
	if c.sess != nil {
		list, err := c.sessionEphemerals(prefix)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.out, javaList(list))
		return nil
	}
	s, err := c.dialRaw()
	if err != nil {
		return err
	}
	defer s.close()
	var resp wire.GetEphemeralsResponse
	if err := s.call(wire.OpGetEphemerals, &wire.GetEphemeralsRequest{PrefixPath: prefix}, &resp, prefix); err != nil {
		return cliMessage(err, prefix)
	}
	fmt.Fprintln(c.out, javaList(resp.Ephemerals))
	return nil
}

// cmdGetAllChildrenNumber is "getAllChildrenNumber path": how many nodes
// the subtree under path holds, path itself not counted.
func cmdGetAllChildrenNumber(c *client, o *options) error {
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return err
	}
	s, err := c.dialRaw()
	if err != nil {
		return err
	}
	defer s.close()
	var resp wire.GetAllChildrenNumberResponse
	if err := s.call(wire.OpGetAllChildrenNumber, &wire.GetAllChildrenNumberRequest{Path: path}, &resp, path); err != nil {
		return cliMessage(err, path)
	}
	fmt.Fprintln(c.out, resp.TotalNumber)
	return nil
}

// javaList formats strings as Java's List.toString: "[a, b]".
func javaList(items []string) string {
	out := "["
	for i, s := range items {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out + "]"
}
