package server

import (
	"bufio"
	"context"
	"net"
	"testing"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// The request path end to end, without a client library: one loopback
// connection with -inflight-like pipelining of 16 requests, so that the
// figures (ns/op, B/op, allocs/op; server and the tiny raw client
// together) show what the server does per request:
//
//	go test ./server/ -run '^$' -bench RequestPath -benchmem
func BenchmarkRequestPath(b *testing.B) {
	s := startBenchServer(b)
	for _, bc := range []struct {
		name string
		op   wire.Op
		req  wire.Record
	}{
		{"getData", wire.OpGetData, &wire.PathWatchRequest{Path: "/bench"}},
		{"exists", wire.OpExists, &wire.PathWatchRequest{Path: "/bench"}},
		{"setData", wire.OpSetData, &wire.SetDataRequest{Path: "/bench", Data: make([]byte, 100), Version: -1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := dialRaw(b, s.Addr())
			defer c.nc.Close()
			c.call(b, wire.OpCreate, &wire.CreateRequest{Path: "/bench", Data: make([]byte, 100), ACL: wire.OpenACLUnsafe})
			b.ReportAllocs()
			b.ResetTimer()
			c.pipeline(b, b.N, 16, bc.op, bc.req)
			b.StopTimer()
			c.call(b, wire.OpDelete, &wire.DeleteRequest{Path: "/bench", Version: -1})
		})
	}
}

func startBenchServer(b *testing.B) *Server {
	cfg := DefaultConfig()
	cfg.ClientPort, cfg.ClientPortAddress = 0, "127.0.0.1"
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// rawClient speaks just enough of the protocol for the benchmark.
type rawClient struct {
	nc  net.Conn
	br  *bufio.Reader
	out []byte
	in  []byte
	xid int32
}

func dialRaw(b testing.TB, addr string) *rawClient {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	c := &rawClient{nc: nc, br: bufio.NewReader(nc)}
	if _, err := nc.Write(wire.AppendFrame(nil, &wire.ConnectRequest{TimeOut: 30000, Passwd: make([]byte, 16)})); err != nil {
		b.Fatal(err)
	}
	frame, err := wire.ReadFrame(c.br, 1<<20, nil)
	if err != nil {
		b.Fatal(err)
	}
	var resp wire.ConnectResponse
	if err := wire.Unmarshal(frame, &resp, 1<<20); err != nil || resp.TimeOut == 0 {
		b.Fatalf("handshake: %v (timeout %d)", err, resp.TimeOut)
	}
	return c
}

// send appends one request to the output buffer.
func (c *rawClient) send(op wire.Op, req wire.Record) {
	c.xid++
	c.out = wire.AppendFrame(c.out, &wire.RequestHeader{Xid: c.xid, Type: op}, req)
}

func (c *rawClient) flush(b testing.TB) {
	if _, err := c.nc.Write(c.out); err != nil {
		b.Fatal(err)
	}
	c.out = c.out[:0]
}

// receive reads one reply and fails on an error code.
func (c *rawClient) receive(b testing.TB) {
	frame, err := wire.ReadFrame(c.br, 1<<20, c.in)
	if err != nil {
		b.Fatal(err)
	}
	c.in = frame[:0]
	var hdr wire.ReplyHeader
	d := wire.NewDecoder(frame, 0)
	hdr.Decode(d)
	if d.Err() != nil || hdr.Err != 0 {
		b.Fatalf("reply xid %d: err %d (%v)", hdr.Xid, hdr.Err, d.Err())
	}
}

func (c *rawClient) call(b testing.TB, op wire.Op, req wire.Record) {
	c.send(op, req)
	c.flush(b)
	c.receive(b)
}

// pipeline sends n requests keeping depth of them in flight.
func (c *rawClient) pipeline(b *testing.B, n, depth int, op wire.Op, req wire.Record) {
	sent, done := 0, 0
	for done < n {
		for sent < n && sent-done < depth {
			c.send(op, req)
			sent++
		}
		c.flush(b)
		c.receive(b)
		done++
	}
}
