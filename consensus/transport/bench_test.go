package transport

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// benchTransport starts a transport of kind "zkraft" (this package) or
// "net" (hashicorp/raft's NetworkTransport, with pipelining enabled at
// the same depth).
func benchTransport(b *testing.B, kind string) raft.Transport {
	const inFlight = 64
	s := listenStream(b, "")
	var tr raft.Transport
	switch kind {
	case "zkraft":
		tr = New(s, Config{MaxInFlight: inFlight, Logger: hclog.NewNullLogger()})
	case "net":
		tr = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
			Stream: s, MaxPool: 3, Timeout: 10 * time.Second, MaxRPCsInFlight: inFlight, Logger: hclog.NewNullLogger(),
		})
	}
	b.Cleanup(func() { tr.(raft.WithClose).Close() })
	return tr
}

// benchResponder answers AppendEntries as Raft does, with a new
// response each.
func benchResponder(b *testing.B, tr raft.Transport) {
	responder(b, tr, func(rpc raft.RPC) {
		req := rpc.Command.(*raft.AppendEntriesRequest)
		rpc.Respond(&raft.AppendEntriesResponse{
			RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("follower"), Addr: []byte("127.0.0.1:2")},
			Term:      req.Term, LastLog: req.PrevLogEntry + 1, Success: true,
		}, nil)
	})
}

// reportCPU reports the process's CPU time per operation since start,
// both ends and the responder included: what a round trip costs, apart
// from the wait for loopback.
func reportCPU(b *testing.B, start time.Duration) {
	if start > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

func benchRequest() *raft.AppendEntriesRequest {
	return &raft.AppendEntriesRequest{
		RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("leader"), Addr: []byte("127.0.0.1:1")},
		Term:      3, PrevLogEntry: 1000, PrevLogTerm: 3, LeaderCommitIndex: 1000,
		Entries: []*raft.Log{{Index: 1001, Term: 3, Type: raft.LogCommand, Data: make([]byte, 200), AppendedAt: time.Now()}},
	}
}

// BenchmarkAppendEntries is one AppendEntries of one 200-byte entry over
// loopback, both ends in this process (so allocations count both): a
// round trip at a time (sync), and through a pipeline (pipelined).
func BenchmarkAppendEntries(b *testing.B) {
	for _, kind := range []string{"zkraft", "net"} {
		b.Run(kind+"/sync", func(b *testing.B) {
			server, client := benchTransport(b, kind), benchTransport(b, kind)
			benchResponder(b, server)
			req, target := benchRequest(), server.LocalAddr()
			var resp raft.AppendEntriesResponse
			if err := client.AppendEntries("f", target, req, &resp); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for range b.N {
				if err := client.AppendEntries("f", target, req, &resp); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
		b.Run(kind+"/pipelined", func(b *testing.B) {
			server, client := benchTransport(b, kind), benchTransport(b, kind)
			benchResponder(b, server)
			p, err := client.AppendEntriesPipeline("f", server.LocalAddr())
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			req := benchRequest()
			var got atomic.Int64
			all := make(chan struct{})
			go func() {
				for f := range p.Consumer() {
					if f.Error() != nil || !f.Response().Success {
						b.Error("pipelined AppendEntries failed")
					}
					if got.Add(1) == int64(b.N) {
						close(all)
						return
					}
				}
			}()
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for range b.N {
				if _, err := p.AppendEntries(req, new(raft.AppendEntriesResponse)); err != nil {
					b.Fatal(err)
				}
			}
			<-all
			reportCPU(b, cpu)
		})
	}
}
