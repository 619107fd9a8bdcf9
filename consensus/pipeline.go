package consensus

import (
	"sync"

	"github.com/hashicorp/raft"
)

// Raft replicates through a pipeline once a follower has caught up: it
// sends AppendEntries without waiting for each answer, and reads the
// answers, in order, from the pipeline's Consumer. The wrappers that must
// see every AppendEntries (the commit notices and the durable-copy count
// in noticeTransport, the message recorder in traceTransport) see the
// pipelined ones through observedPipeline.

// observedPipeline wraps a raft.AppendPipeline: before sees each request
// as it is sent, and after each answered future before Raft does.
type observedPipeline struct {
	inner  raft.AppendPipeline
	before func(args *raft.AppendEntriesRequest)
	after  func(f raft.AppendFuture)

	out       chan raft.AppendFuture
	stop      chan struct{}
	startOnce sync.Once
	closeOnce sync.Once
	relayed   sync.WaitGroup
}

// observePipeline wraps inner. When inner is itself observed (the
// transports wrap each other), the hooks join its own instead, so that a
// pipelined answer takes one extra goroutine hop however many wrappers
// look at it: inner's before runs last and its after first.
func observePipeline(inner raft.AppendPipeline, before func(*raft.AppendEntriesRequest), after func(raft.AppendFuture)) raft.AppendPipeline {
	if o, ok := inner.(*observedPipeline); ok {
		o.before = chainBefore(before, o.before)
		o.after = chainAfter(o.after, after)
		return o
	}
	return &observedPipeline{inner: inner, before: before, after: after,
		out: make(chan raft.AppendFuture, cap(inner.Consumer())), stop: make(chan struct{})}
}

func chainBefore(a, b func(*raft.AppendEntriesRequest)) func(*raft.AppendEntriesRequest) {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return func(r *raft.AppendEntriesRequest) { a(r); b(r) }
}

func chainAfter(a, b func(raft.AppendFuture)) func(raft.AppendFuture) {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return func(f raft.AppendFuture) { a(f); b(f) }
}

// relay passes the inner pipeline's answered futures on, through after.
func (p *observedPipeline) relay() {
	defer p.relayed.Done()
	in := p.inner.Consumer()
	for {
		select {
		case f := <-in:
			if p.after != nil {
				p.after(f)
			}
			select {
			case p.out <- f:
			case <-p.stop:
				return
			}
		case <-p.stop:
			return
		}
	}
}

func (p *observedPipeline) AppendEntries(args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) (raft.AppendFuture, error) {
	if p.before != nil {
		p.before(args)
	}
	return p.inner.AppendEntries(args, resp)
}

// Consumer starts the relay (the hooks are all joined by then: Raft asks
// for the consumer only after it has the pipeline).
func (p *observedPipeline) Consumer() <-chan raft.AppendFuture {
	p.startOnce.Do(func() {
		p.relayed.Add(1)
		go p.relay()
	})
	return p.out
}

// Close closes the inner pipeline and stops the relay.
func (p *observedPipeline) Close() error {
	err := p.inner.Close()
	p.closeOnce.Do(func() { close(p.stop) })
	p.startOnce.Do(func() {}) // no relay starts after this
	p.relayed.Wait()
	return err
}

// AppendEntriesPipeline observes the pipeline for the commit notices and
// the durable-copy count, as AppendEntries does for single calls.
func (t *noticeTransport) AppendEntriesPipeline(id raft.ServerID, target raft.ServerAddress) (raft.AppendPipeline, error) {
	inner, err := t.Transport.AppendEntriesPipeline(id, target)
	if err != nil {
		return nil, err
	}
	return observePipeline(inner, t.capCommit, func(f raft.AppendFuture) {
		t.replicated(id, target, f.Request(), f.Response(), f.Error())
	}), nil
}

// AppendEntriesPipeline records the pipelined AppendEntries while the
// trace records.
func (t *traceTransport) AppendEntriesPipeline(id raft.ServerID, target raft.ServerAddress) (raft.AppendPipeline, error) {
	inner, err := t.Transport.AppendEntriesPipeline(id, target)
	if err != nil {
		return nil, err
	}
	return observePipeline(inner, nil, func(f raft.AppendFuture) {
		if t.trace.active() {
			t.recordAppend(id, f.Start(), f.Request(), f.Response(), f.Error())
		}
	}), nil
}
