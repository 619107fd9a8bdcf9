package transport

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// TestEveryRPC sends every RPC through a real connection and checks the
// server saw the request and the client the response, field for field.
func TestEveryRPC(t *testing.T) {
	client, _ := newTransport(t, Config{})
	server, _ := newTransport(t, Config{})
	reqs, resps := sampleRequests(), sampleResponses()
	respFor := func(cmd any) any {
		for _, r := range resps {
			switch cmd.(type) {
			case *raft.AppendEntriesRequest:
				if _, ok := r.(*raft.AppendEntriesResponse); ok {
					return r
				}
			case *raft.RequestVoteRequest:
				if _, ok := r.(*raft.RequestVoteResponse); ok {
					return r
				}
			case *raft.RequestPreVoteRequest:
				if _, ok := r.(*raft.RequestPreVoteResponse); ok {
					return r
				}
			case *raft.InstallSnapshotRequest:
				if _, ok := r.(*raft.InstallSnapshotResponse); ok {
					return r
				}
			case *raft.TimeoutNowRequest:
				if _, ok := r.(*raft.TimeoutNowResponse); ok {
					return r
				}
			}
		}
		panic("no response")
	}
	seen := make(chan any, 1)
	responder(t, server, func(rpc raft.RPC) {
		if rpc.Reader != nil {
			io.Copy(io.Discard, rpc.Reader)
		}
		seen <- rpc.Command
		rpc.Respond(respFor(rpc.Command), nil)
	})
	target := server.LocalAddr()
	for _, req := range reqs {
		want := respFor(req)
		got := reflect.New(reflect.TypeOf(want).Elem()).Interface()
		var err error
		switch r := req.(type) {
		case *raft.AppendEntriesRequest:
			if isHeartbeat(r) {
				continue // TestHeartbeatFastPath
			}
			err = client.AppendEntries("s", target, r, got.(*raft.AppendEntriesResponse))
		case *raft.RequestVoteRequest:
			err = client.RequestVote("s", target, r, got.(*raft.RequestVoteResponse))
		case *raft.RequestPreVoteRequest:
			err = client.RequestPreVote("s", target, r, got.(*raft.RequestPreVoteResponse))
		case *raft.InstallSnapshotRequest:
			c := *r
			c.Size = 1000
			req = &c
			err = client.InstallSnapshot("s", target, &c, got.(*raft.InstallSnapshotResponse), bytes.NewReader(make([]byte, 1000)))
		case *raft.TimeoutNowRequest:
			err = client.TimeoutNow("s", target, r, got.(*raft.TimeoutNowResponse))
		}
		if err != nil {
			t.Fatalf("%T: %v", req, err)
		}
		if cmd := <-seen; !reflect.DeepEqual(cmd, normalised(req)) {
			t.Errorf("%T arrived as\n %s\nsent\n %s", req, show(cmd), show(req))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%T: response %+v, sent %+v", req, got, want)
		}
	}
	// One RPC at a time: every connection went back to the pool, and was
	// reused (InstallSnapshot's is closed).
	client.mu.Lock()
	pooled, open := len(client.pool[target]), len(client.conns)
	client.mu.Unlock()
	if pooled != 1 || open != 1 {
		t.Errorf("%d pooled and %d open connections, want 1 and 1", pooled, open)
	}
}

func TestErrorResponse(t *testing.T) {
	client, _ := newTransport(t, Config{})
	server, _ := newTransport(t, Config{})
	responder(t, server, func(rpc raft.RPC) {
		rpc.Respond(&raft.RequestVoteResponse{Term: 3}, errors.New("not now"))
	})
	var resp raft.RequestVoteResponse
	err := client.RequestVote("s", server.LocalAddr(), &raft.RequestVoteRequest{Term: 2}, &resp)
	if err == nil || err.Error() != "not now" {
		t.Fatalf("error %v, want the server's", err)
	}
	if resp.Term != 3 {
		t.Fatalf("response %+v: it comes with the error", resp)
	}
	// The connection stays usable.
	client.mu.Lock()
	pooled := len(client.pool[server.LocalAddr()])
	client.mu.Unlock()
	if pooled != 1 {
		t.Fatalf("%d pooled connections after an error response", pooled)
	}
}

func TestHeartbeatFastPath(t *testing.T) {
	client, _ := newTransport(t, Config{})
	server, _ := newTransport(t, Config{})
	var viaConsumer atomic.Int32
	responder(t, server, func(rpc raft.RPC) {
		viaConsumer.Add(1)
		succeed(rpc)
	})
	got := make(chan *raft.AppendEntriesRequest, 1)
	server.SetHeartbeatHandler(func(rpc raft.RPC) {
		got <- rpc.Command.(*raft.AppendEntriesRequest)
		rpc.Respond(&raft.AppendEntriesResponse{Term: 5, Success: true}, nil)
	})
	hb := &raft.AppendEntriesRequest{RPCHeader: hdr("1"), Term: 5}
	var resp raft.AppendEntriesResponse
	if err := client.AppendEntries("s", server.LocalAddr(), hb, &resp); err != nil {
		t.Fatal(err)
	}
	if !resp.Success || !reflect.DeepEqual(<-got, hb) {
		t.Fatalf("heartbeat response %+v", resp)
	}
	// The deprecated Leader field names the leader as well.
	hb2 := &raft.AppendEntriesRequest{Term: 5, Leader: []byte("old")}
	if err := client.AppendEntries("s", server.LocalAddr(), hb2, &resp); err != nil {
		t.Fatal(err)
	}
	<-got
	// Not heartbeats: these go to the consumer.
	for _, req := range []*raft.AppendEntriesRequest{
		{RPCHeader: hdr("1"), Term: 5, LeaderCommitIndex: 1},
		{RPCHeader: hdr("1"), Term: 5, PrevLogEntry: 1, PrevLogTerm: 1},
		{RPCHeader: hdr("1"), Term: 5, Entries: []*raft.Log{{Index: 1}}},
		{RPCHeader: hdr("1")},
	} {
		if err := client.AppendEntries("s", server.LocalAddr(), req, &resp); err != nil {
			t.Fatal(err)
		}
	}
	if n := viaConsumer.Load(); n != 4 {
		t.Fatalf("%d requests reached the consumer, want 4", n)
	}
	// Without a handler, heartbeats go to the consumer too.
	server.SetHeartbeatHandler(nil)
	if err := client.AppendEntries("s", server.LocalAddr(), hb, &resp); err != nil {
		t.Fatal(err)
	}
	if n := viaConsumer.Load(); n != 5 {
		t.Fatalf("%d requests reached the consumer, want 5", n)
	}
}

func TestInstallSnapshotStreamsTheBody(t *testing.T) {
	client, _ := newTransport(t, Config{})
	server, _ := newTransport(t, Config{})
	body := make([]byte, 5<<20+123)
	rand.New(rand.NewSource(1)).Read(body)
	want := sha256.Sum256(body)
	responder(t, server, func(rpc raft.RPC) {
		req, ok := rpc.Command.(*raft.InstallSnapshotRequest)
		if !ok {
			rpc.Respond(&raft.TimeoutNowResponse{}, nil)
			return
		}
		h := sha256.New()
		n, err := io.Copy(h, rpc.Reader)
		ok = err == nil && n == req.Size && bytes.Equal(h.Sum(nil), want[:])
		rpc.Respond(&raft.InstallSnapshotResponse{Term: req.Term, Success: ok}, nil)
	})
	req := &raft.InstallSnapshotRequest{RPCHeader: hdr("1"), Term: 4, LastLogIndex: 10, Size: int64(len(body))}
	var resp raft.InstallSnapshotResponse
	// The reader has more than Size: only Size bytes are sent.
	data := io.MultiReader(bytes.NewReader(body), bytes.NewReader([]byte("extra")))
	if err := client.InstallSnapshot("s", server.LocalAddr(), req, &resp, data); err != nil {
		t.Fatal(err)
	}
	if !resp.Success || resp.Term != 4 {
		t.Fatalf("response %+v", resp)
	}
	// A reader that runs short fails the call.
	short := *req
	err := client.InstallSnapshot("s", server.LocalAddr(), &short, &resp, bytes.NewReader(body[:100]))
	if err == nil {
		t.Fatal("a short snapshot was sent")
	}
	// Other RPCs still work.
	if err := client.TimeoutNow("s", server.LocalAddr(), &raft.TimeoutNowRequest{}, new(raft.TimeoutNowResponse)); err != nil {
		t.Fatal(err)
	}
}

// TestCloseEndsCallsInProgress: a call waiting for a consumer that never
// answers returns when either side closes.
func TestCloseEndsCallsInProgress(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		t.Run(side, func(t *testing.T) {
			client, _ := newTransport(t, Config{})
			server, _ := newTransport(t, Config{})
			taken := make(chan struct{})
			go func() {
				<-server.Consumer() // and never answers
				close(taken)
			}()
			errc := make(chan error, 1)
			go func() {
				errc <- client.RequestVote("s", server.LocalAddr(), &raft.RequestVoteRequest{}, new(raft.RequestVoteResponse))
			}()
			<-taken
			closing := client
			if side == "server" {
				closing = server
			}
			within(t, 5*time.Second, "Close", func() { closing.Close() })
			select {
			case err := <-errc:
				if err == nil {
					t.Fatal("the call succeeded")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the call did not return after Close")
			}
		})
	}
}

func TestCallsAfterClose(t *testing.T) {
	client, _ := newTransport(t, Config{})
	server, _ := newTransport(t, Config{})
	client.Close()
	if err := client.AppendEntries("s", server.LocalAddr(), &raft.AppendEntriesRequest{}, new(raft.AppendEntriesResponse)); !errors.Is(err, raft.ErrTransportShutdown) {
		t.Fatalf("AppendEntries after Close: %v", err)
	}
	if _, err := client.AppendEntriesPipeline("s", server.LocalAddr()); !errors.Is(err, raft.ErrTransportShutdown) {
		t.Fatalf("AppendEntriesPipeline after Close: %v", err)
	}
	if err := client.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestDisconnect(t *testing.T) {
	client, _ := newTransport(t, Config{})
	server, _ := newTransport(t, Config{})
	responder(t, server, succeed)
	target := server.LocalAddr()
	for range 2 {
		if err := client.AppendEntries("s", target, &raft.AppendEntriesRequest{}, new(raft.AppendEntriesResponse)); err != nil {
			t.Fatal(err)
		}
	}
	p, err := client.AppendEntriesPipeline("s", target)
	if err != nil {
		t.Fatal(err)
	}
	client.Disconnect(target)
	if _, err := p.AppendEntries(&raft.AppendEntriesRequest{}, new(raft.AppendEntriesResponse)); err == nil {
		t.Fatal("a disconnected pipeline took a request")
	}
	client.mu.Lock()
	open := len(client.conns)
	client.mu.Unlock()
	if open != 0 {
		t.Fatalf("%d connections open after Disconnect", open)
	}
	if err := client.AppendEntries("s", target, &raft.AppendEntriesRequest{}, new(raft.AppendEntriesResponse)); err != nil {
		t.Fatalf("after Disconnect: %v", err)
	}
	client.DisconnectAll()
	p.Close()
}

// TestReceivedEntriesAreNotReused: Raft keeps the entries it receives, so
// a later frame on the same connection must not overwrite their data.
func TestReceivedEntriesAreNotReused(t *testing.T) {
	client, _ := newTransport(t, Config{})
	server, _ := newTransport(t, Config{})
	var mu sync.Mutex
	var kept []*raft.AppendEntriesRequest
	responder(t, server, func(rpc raft.RPC) {
		mu.Lock()
		kept = append(kept, rpc.Command.(*raft.AppendEntriesRequest))
		mu.Unlock()
		succeed(rpc)
	})
	for i := range 3 {
		req := entryReq(uint64(i))
		for j := range req.Entries[0].Data {
			req.Entries[0].Data[j] = byte(i + 1)
		}
		req.RPCHeader.ID = []byte{byte(i + 1)}
		if err := client.AppendEntries("s", server.LocalAddr(), req, new(raft.AppendEntriesResponse)); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i, req := range kept {
		if !bytes.Equal(req.Entries[0].Data, bytes.Repeat([]byte{byte(i + 1)}, 200)) || req.RPCHeader.ID[0] != byte(i+1) {
			t.Fatalf("request %d was overwritten by a later one", i)
		}
	}
}
