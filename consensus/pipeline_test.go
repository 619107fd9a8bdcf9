package consensus

import (
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/require"
)

// fakePipeline answers every AppendEntries at once, successfully.
type fakePipeline struct{ ch chan raft.AppendFuture }

type doneFuture struct {
	req  *raft.AppendEntriesRequest
	resp *raft.AppendEntriesResponse
}

func (f doneFuture) Error() error                          { return nil }
func (f doneFuture) Start() time.Time                      { return time.Time{} }
func (f doneFuture) Request() *raft.AppendEntriesRequest   { return f.req }
func (f doneFuture) Response() *raft.AppendEntriesResponse { return f.resp }
func (p *fakePipeline) Consumer() <-chan raft.AppendFuture { return p.ch }
func (p *fakePipeline) Close() error                       { return nil }
func (p *fakePipeline) AppendEntries(req *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) (raft.AppendFuture, error) {
	resp.Success = true
	f := doneFuture{req, resp}
	p.ch <- f
	return f, nil
}

func TestObservedPipelineJoinsHooks(t *testing.T) {
	var order []string
	inner := &fakePipeline{ch: make(chan raft.AppendFuture, 4)}
	p := observePipeline(inner,
		func(r *raft.AppendEntriesRequest) { order = append(order, "inner before") },
		func(f raft.AppendFuture) { order = append(order, "inner after") })
	outer := observePipeline(p,
		func(r *raft.AppendEntriesRequest) { r.LeaderCommitIndex = 1; order = append(order, "outer before") },
		func(f raft.AppendFuture) { order = append(order, "outer after") })
	require.Same(t, p, outer, "a wrapper of a wrapper adds no second relay")

	req := &raft.AppendEntriesRequest{LeaderCommitIndex: 9}
	_, err := outer.AppendEntries(req, &raft.AppendEntriesResponse{})
	require.NoError(t, err)
	f := <-outer.Consumer()
	require.Same(t, req, f.Request())
	require.Equal(t, uint64(1), req.LeaderCommitIndex, "the outer wrapper's change is what is sent")
	require.Equal(t, []string{"outer before", "inner before", "inner after", "outer after"}, order)

	closed := make(chan struct{})
	go func() { outer.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not stop the relay")
	}
}

func TestObservedPipelineClosesUnread(t *testing.T) {
	inner := &fakePipeline{ch: make(chan raft.AppendFuture, 1)}
	p := observePipeline(inner, nil, nil)
	p.Consumer()
	// One answer waits in the consumer, one in the relay, one in inner.
	for range 3 {
		_, err := p.AppendEntries(&raft.AppendEntriesRequest{}, &raft.AppendEntriesResponse{})
		require.NoError(t, err)
	}
	require.NoError(t, p.Close(), "Close returns while answers wait for a reader that stopped")
}
