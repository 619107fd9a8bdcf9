package transport

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// rawSend connects to tr, writes b, half-closes, and waits for the
// server to close the connection. It returns what the server sent and
// the bytes the process allocated meanwhile.
func rawSend(t *testing.T, tr *Transport, b []byte) ([]byte, uint64) {
	t.Helper()
	c, err := net.Dial("tcp", string(tr.LocalAddr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := allocated()
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).CloseWrite()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("the server did not close the connection: %v", err)
	}
	return got, allocated() - before
}

func TestBadPreambles(t *testing.T) {
	for _, c := range []struct {
		name, in, log string
	}{
		{"http", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "bad preamble"},
		{"NetworkTransport", "\x00\x85\xafProtocolVersion", "NetworkTransport"},
		{"version", "ZKRT\x07", "unsupported protocol version"},
		{"short", "ZK", "incomplete preamble"},
	} {
		t.Run(c.name, func(t *testing.T) {
			server, logs := newTransport(t, Config{})
			got, _ := rawSend(t, server, []byte(c.in))
			if len(got) != 0 {
				t.Fatalf("the server answered %q", got)
			}
			waitFor(t, 5*time.Second, "the log line", func() bool { return logs.contains(c.log) })
		})
	}
}

// TestNetworkTransportPeers: a NetworkTransport calling this one, and
// this one calling a NetworkTransport, fail at once, and the server
// logs why.
func TestNetworkTransportPeers(t *testing.T) {
	server, logs := newTransport(t, Config{})
	nt := raft.NewNetworkTransport(listenStream(t, ""), 1, 2*time.Second, io.Discard)
	defer nt.Close()
	within(t, 5*time.Second, "NetworkTransport's AppendEntries", func() {
		if err := nt.AppendEntries("s", server.LocalAddr(), &raft.AppendEntriesRequest{Term: 1}, new(raft.AppendEntriesResponse)); err == nil {
			t.Error("a NetworkTransport's RPC succeeded")
		}
	})
	waitFor(t, 5*time.Second, "the log line", func() bool { return logs.contains("NetworkTransport") })

	client, _ := newTransport(t, Config{Timeout: 2 * time.Second})
	within(t, 5*time.Second, "AppendEntries to a NetworkTransport", func() {
		if err := client.AppendEntries("s", nt.LocalAddr(), &raft.AppendEntriesRequest{Term: 1}, new(raft.AppendEntriesResponse)); err == nil {
			t.Error("an RPC to a NetworkTransport succeeded")
		}
	})
}

func TestHostileFrames(t *testing.T) {
	frame := func(typ byte, body []byte) []byte {
		b := binary.BigEndian.AppendUint32(preamble[:], uint32(len(body)+1))
		return append(append(b, typ), body...)
	}
	ae, _ := appendRequest(nil, &raft.AppendEntriesRequest{Term: 1}, DefaultMaxFrame)
	countBomb := append(ae[frameHeader:len(ae)-4:len(ae)-4], 0x80, 0, 0, 1, 1, 2, 3) // 2^31 entries
	claimed := binary.BigEndian.AppendUint32(preamble[:], 100<<20)                   // 100 MiB claimed, 3 sent
	claimed = append(claimed, typeAppendEntries, 1, 2, 3)
	for _, c := range []struct {
		name string
		in   []byte
		log  string
	}{
		{"length 0xFFFFFFFF", append(preamble[:], 0xff, 0xff, 0xff, 0xff, 1), "frame too large"},
		{"length 0", append(preamble[:], 0, 0, 0, 0, 1), "without a type"},
		{"2^31 entries", frame(typeAppendEntries, countBomb), "more entries than the frame holds"},
		{"unknown type", frame(0x42, nil), "unexpected frame type 66"},
		{"negative snapshot size", frame(typeInstallSnapshot, func() []byte {
			b, _ := appendRequest(nil, &raft.InstallSnapshotRequest{Size: -1}, DefaultMaxFrame)
			return b[frameHeader:]
		}()), "negative snapshot size"},
		{"a response sent as a request", frame(typeAppendEntries|responseBit, nil), "unexpected frame type 129"},
		{"100 MiB claimed, 3 bytes sent", claimed, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			server, logs := newTransport(t, Config{})
			responder(t, server, succeed)
			got, alloc := rawSend(t, server, c.in)
			if len(got) != 0 {
				t.Fatalf("the server answered %q", got)
			}
			if alloc > 1<<20 {
				t.Fatalf("the exchange allocated %d bytes", alloc)
			}
			if c.log != "" {
				waitFor(t, 5*time.Second, "the log line", func() bool { return logs.contains(c.log) })
			}
			t.Logf("allocated %d bytes", alloc)
		})
	}
}

// TestOversizedRequest: a request above MaxFrame fails unsent, and the
// connection stays usable.
func TestOversizedRequest(t *testing.T) {
	client, _ := newTransport(t, Config{MaxFrame: 4096})
	server, _ := newTransport(t, Config{})
	responder(t, server, succeed)
	big := &raft.AppendEntriesRequest{Term: 1, Entries: []*raft.Log{{Data: make([]byte, 5000)}}}
	if err := client.AppendEntries("s", server.LocalAddr(), big, new(raft.AppendEntriesResponse)); err == nil {
		t.Fatal("an oversized request was sent")
	}
	if err := client.AppendEntries("s", server.LocalAddr(), entryReq(1), new(raft.AppendEntriesResponse)); err != nil {
		t.Fatal(err)
	}
	p, err := client.AppendEntriesPipeline("s", server.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.AppendEntries(big, new(raft.AppendEntriesResponse)); err == nil {
		t.Fatal("an oversized request was pipelined")
	}
	f, err := p.AppendEntries(entryReq(2), new(raft.AppendEntriesResponse))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Error(); err != nil {
		t.Fatal(err)
	}
}
