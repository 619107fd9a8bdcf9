package transport

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

func entryReq(i uint64) *raft.AppendEntriesRequest {
	return &raft.AppendEntriesRequest{
		RPCHeader: hdr("1"), Term: 1, PrevLogEntry: i, PrevLogTerm: 1, LeaderCommitIndex: i,
		Entries: []*raft.Log{{Index: i + 1, Term: 1, Type: raft.LogCommand, Data: make([]byte, 200)}},
	}
}

// TestPipelineInOrder sends 10,000 AppendEntries on one pipeline and
// checks every response arrives, in order, matched to its request.
func TestPipelineInOrder(t *testing.T) {
	const n = 10000
	client, _ := newTransport(t, Config{MaxInFlight: 16})
	server, _ := newTransport(t, Config{})
	var handled atomic.Uint64
	responder(t, server, func(rpc raft.RPC) {
		req := rpc.Command.(*raft.AppendEntriesRequest)
		if want := handled.Add(1); req.PrevLogEntry != want || req.Entries[0].Index != want+1 {
			t.Errorf("request %d arrived as number %d", req.PrevLogEntry, want)
		}
		succeed(rpc)
	})
	p, err := client.AppendEntriesPipeline("s", server.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	errc := make(chan error, 1)
	go func() {
		for i := uint64(1); i <= n; i++ {
			if _, err := p.AppendEntries(entryReq(i), new(raft.AppendEntriesResponse)); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	for i := uint64(1); i <= n; i++ {
		var f raft.AppendFuture
		select {
		case f = <-p.Consumer():
		case err := <-errc:
			if err != nil {
				t.Fatalf("send: %v", err)
			}
			f = <-p.Consumer()
		case <-time.After(10 * time.Second):
			t.Fatalf("no response %d", i)
		}
		if err := f.Error(); err != nil {
			t.Fatalf("future %d: %v", i, err)
		}
		req, resp := f.Request(), f.Response()
		if req.PrevLogEntry != i || resp.LastLog != i || !resp.Success || f.Start().IsZero() {
			t.Fatalf("future %d: request %d, response %+v", i, req.PrevLogEntry, resp)
		}
	}
	within(t, 5*time.Second, "pipeline Close", func() { p.Close() })
	// Requests queued while a write is in progress go out together.
	writes := client.stream.(*testStream).writes.Load()
	t.Logf("%d requests in %d writes", n, writes)
	if writes >= n {
		t.Errorf("%d requests took %d writes: no batching", n, writes)
	}
}

// blockedPipeline starts a pipeline whose consumer is never read, and a
// sender that sends until a call fails. It returns once the sender is
// parked: with MaxInFlight m, the reader has filled the consumer channel
// (m futures) and holds one more, and m more await their responses.
func blockedPipeline(t *testing.T, client, server *Transport, m int) (raft.AppendPipeline, *[]raft.AppendFuture, chan error) {
	var handled atomic.Int64
	responder(t, server, func(rpc raft.RPC) {
		handled.Add(1)
		succeed(rpc)
	})
	p, err := client.AppendEntriesPipeline("s", server.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	futures := new([]raft.AppendFuture)
	errc := make(chan error, 1)
	go func() {
		for i := uint64(1); ; i++ {
			f, err := p.AppendEntries(entryReq(i), new(raft.AppendEntriesResponse))
			if err != nil {
				errc <- err
				return
			}
			mu.Lock()
			*futures = append(*futures, f)
			mu.Unlock()
		}
	}()
	parked := 2*m + 1
	waitFor(t, 10*time.Second, "the sender to fill the pipeline", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(*futures) == parked && handled.Load() == int64(parked)
	})
	mu.Lock()
	defer mu.Unlock()
	if len(*futures) != parked {
		t.Fatalf("the sender sent %d requests, want %d before blocking", len(*futures), parked)
	}
	return p, futures, errc
}

// TestPipelineConsumerStopsReading is netPipeline's deadlock: the
// consumer stops reading futures while the sender keeps sending. Close
// must return promptly, the blocked sender must return, and every future
// must complete.
func TestPipelineConsumerStopsReading(t *testing.T) {
	for _, closer := range []string{"pipeline", "transport"} {
		t.Run(closer, func(t *testing.T) {
			const m = 4
			client, _ := newTransport(t, Config{MaxInFlight: m})
			server, _ := newTransport(t, Config{})
			p, futures, errc := blockedPipeline(t, client, server, m)
			select {
			case err := <-errc:
				t.Fatalf("the sender returned before Close: %v", err)
			default:
			}
			within(t, 5*time.Second, closer+" Close", func() {
				if closer == "pipeline" {
					p.Close()
				} else {
					client.Close()
				}
			})
			select {
			case err := <-errc:
				want := raft.ErrPipelineShutdown
				if closer == "transport" {
					want = raft.ErrTransportShutdown
				}
				if !errors.Is(err, want) {
					t.Fatalf("the blocked sender returned %v, want %v", err, want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the blocked sender did not return")
			}
			// m+1 futures got their response (m in the consumer channel, one
			// held by the reader); the other m complete with an error.
			var ok, failed int
			within(t, 5*time.Second, "every future's Error", func() {
				for _, f := range *futures {
					if f.Error() == nil {
						ok++
					} else {
						failed++
					}
				}
			})
			if ok != m+1 || failed != m {
				t.Fatalf("%d futures answered and %d failed, want %d and %d", ok, failed, m+1, m)
			}
			within(t, 5*time.Second, "a second Close", func() { p.Close() })
		})
	}
}

// TestPipelineStopsAfterRejection is how Raft uses a pipeline: its
// decoder stops reading at the first response that isn't a success and
// closes finishCh; its send loop checks finishCh only between sends. So
// after a rejection, sends (including one waiting for a slot) must
// return at once, with nobody reading the consumer and before anyone
// calls Close, and the futures they return must have failed.
func TestPipelineStopsAfterRejection(t *testing.T) {
	const m, reject = 2, 5
	client, _ := newTransport(t, Config{MaxInFlight: m})
	server, _ := newTransport(t, Config{})
	responder(t, server, func(rpc raft.RPC) {
		req := rpc.Command.(*raft.AppendEntriesRequest)
		if req.PrevLogEntry == reject {
			rpc.Respond(&raft.AppendEntriesResponse{Term: req.Term, LastLog: 2}, nil)
			return
		}
		succeed(rpc)
	})
	p, err := client.AppendEntriesPipeline("s", server.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// Raft's pipelineDecode.
	finish := make(chan struct{})
	var decoded []uint64
	go func() {
		defer close(finish)
		for f := range p.Consumer() {
			decoded = append(decoded, f.Request().PrevLogEntry)
			if !f.Response().Success {
				return
			}
		}
	}()
	// Raft's send loop: it sends until it sees finish.
	var futures []raft.AppendFuture
	sent := make(chan error, 1)
	go func() {
		for i := uint64(1); ; i++ {
			select {
			case <-finish:
				sent <- nil
				return
			default:
			}
			f, err := p.AppendEntries(entryReq(i), new(raft.AppendEntriesResponse))
			if err != nil {
				sent <- err
				return
			}
			futures = append(futures, f)
		}
	}()
	select {
	case err := <-sent:
		if err != nil {
			t.Fatalf("a send after the rejection failed: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the sender did not stop after the rejection")
	}
	for i, id := range decoded {
		if id != uint64(i+1) {
			t.Fatalf("responses delivered in the order %v", decoded)
		}
	}
	if len(decoded) != reject {
		t.Fatalf("the decoder stopped after %d responses, want %d", len(decoded), reject)
	}
	within(t, 5*time.Second, "every future's Error", func() {
		for i, f := range futures {
			if err := f.Error(); (err == nil) != (i < reject) {
				t.Errorf("future %d: %v", i+1, err)
			}
		}
	})
	if f, err := p.AppendEntries(entryReq(100), new(raft.AppendEntriesResponse)); err != nil || !errors.Is(f.Error(), ErrPipelineRejected) {
		t.Fatalf("a send on the rejected pipeline: %v", err)
	}
	within(t, 5*time.Second, "pipeline Close", func() { p.Close() })
	if _, err := p.AppendEntries(entryReq(101), new(raft.AppendEntriesResponse)); !errors.Is(err, raft.ErrPipelineShutdown) {
		t.Fatalf("a send on the closed pipeline: %v", err)
	}
}

// TestPipelineUnansweredTimesOut: a server that takes requests but never
// answers fails the pipeline after Timeout.
func TestPipelineUnansweredTimesOut(t *testing.T) {
	client, _ := newTransport(t, Config{MaxInFlight: 2, Timeout: 200 * time.Millisecond})
	server, _ := newTransport(t, Config{})
	responder(t, server, func(raft.RPC) {})
	p, err := client.AppendEntriesPipeline("s", server.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	f, err := p.AppendEntries(entryReq(1), new(raft.AppendEntriesResponse))
	if err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, "the future's Error", func() {
		if f.Error() == nil {
			t.Error("an unanswered AppendEntries succeeded")
		}
	})
	if _, err := p.AppendEntries(entryReq(2), new(raft.AppendEntriesResponse)); err == nil {
		t.Fatal("a failed pipeline took a request")
	}
}

// TestPipelineServerGoesAway: the server closing fails the futures and
// the sender.
func TestPipelineServerGoesAway(t *testing.T) {
	client, _ := newTransport(t, Config{MaxInFlight: 8})
	server, _ := newTransport(t, Config{})
	taken := make(chan struct{}, 100)
	responder(t, server, func(raft.RPC) { taken <- struct{}{} }) // never answers
	p, err := client.AppendEntriesPipeline("s", server.LocalAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var fs []raft.AppendFuture
	for i := range uint64(3) {
		f, err := p.AppendEntries(entryReq(i+1), new(raft.AppendEntriesResponse))
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	<-taken
	within(t, 5*time.Second, "server Close", func() { server.Close() })
	within(t, 5*time.Second, "the futures' Error", func() {
		for _, f := range fs {
			if f.Error() == nil {
				t.Error("a future succeeded without a response")
			}
		}
	})
}

func TestPipeliningDisabled(t *testing.T) {
	client, _ := newTransport(t, Config{MaxInFlight: 1})
	if _, err := client.AppendEntriesPipeline("s", "127.0.0.1:1"); !errors.Is(err, raft.ErrPipelineReplicationNotSupported) {
		t.Fatalf("MaxInFlight 1: %v", err)
	}
}
