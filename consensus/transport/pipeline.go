package transport

import (
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// ErrPipelineRejected is the error of a pipeline's unanswered futures
// once a response that was an error or not a success was delivered, and
// of the futures AppendEntries returns after that.
var ErrPipelineRejected = errors.New("transport: pipeline stopped after a failed AppendEntries")

// pipeline sends AppendEntries on its own connection without waiting for
// the responses, which a reader goroutine delivers in order.
//
// Nothing in it can park for good:
//   - AppendEntries waits only for a slot, which the reader frees as soon
//     as it has decoded a response, whether or not the consumer took an
//     earlier one; and it returns at once when the pipeline fails.
//   - The reader waits for a request, for a response (under Timeout), or
//     for the consumer to take a response; each of those ends when the
//     pipeline fails.
//   - The writer waits for frames to write or for a write (under
//     Timeout); both end when the pipeline fails.
//
// The pipeline fails on Close, on the transport's Close, on an I/O or
// decoding error, and after delivering a response that is an error or
// not a success. The last is Raft's own rule: replication.go's
// pipelineDecode stops reading at such a response, and its send loop
// notices only between sends (finishCh), so a pipeline that went on
// accepting requests would let the sender fill the slots and park while
// the reader parked on a consumer that had gone (the deadlock of raft
// v1.7.3's netPipeline). After such a delivered failure, AppendEntries
// neither blocks nor fails: it returns a future that has already failed
// with ErrPipelineRejected and is never delivered, as netPipeline's send
// succeeds when it doesn't park. Raft's send loop then leaves at its next
// turn, without the error it would log, and without failing a leadership
// transfer waiting on the send; it falls back to synchronous replication,
// as it does after a rejection anyway. After any other failure,
// AppendEntries returns the error, since Raft's decoder is still waiting
// and its sender must stop.
//
// Futures that got no response complete with the failure and are not
// delivered: Raft's decoder doesn't look at a future's error, and would
// count one as contact with the follower (its leader lease) before
// seeing it isn't a success, which netPipeline lets happen. Raft learns
// of such a failure from its next send instead, which it makes at least
// every CommitTimeout.
type pipeline struct {
	t      *Transport
	c      *clientConn
	target raft.ServerAddress

	// slots holds one token per request awaiting its response, so at most
	// MaxInFlight are outstanding.
	slots chan struct{}
	// sent holds the requests queued or written, in the order of their
	// frames; its capacity (MaxInFlight) means a send never blocks.
	sent chan *appendFuture
	// done delivers the answered futures to the consumer.
	done chan raft.AppendFuture
	// wake tells the writer that frames are pending.
	wake chan struct{}
	// closed is closed when the pipeline fails.
	closed chan struct{}

	mu      sync.Mutex
	err     error  // why the pipeline failed; set once, with closed
	shut    bool   // Close was called
	pending []byte // frames the writer has yet to write

	wg sync.WaitGroup // the reader and the writer
}

// AppendEntriesPipeline returns a pipeline to target on a connection it
// dials for itself.
func (t *Transport) AppendEntriesPipeline(id raft.ServerID, target raft.ServerAddress) (raft.AppendPipeline, error) {
	if t.cfg.MaxInFlight < 2 {
		return nil, raft.ErrPipelineReplicationNotSupported
	}
	c, err := t.dial(target)
	if err != nil {
		return nil, err
	}
	n := t.cfg.MaxInFlight
	p := &pipeline{
		t:       t,
		c:       c,
		target:  target,
		slots:   make(chan struct{}, n),
		sent:    make(chan *appendFuture, n),
		done:    make(chan raft.AppendFuture, n),
		wake:    make(chan struct{}, 1),
		closed:  make(chan struct{}),
		pending: c.startFrame(),
	}
	c.fresh = false // the preamble, if any, is in pending
	c.wbuf = nil
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		t.release(c)
		return nil, raft.ErrTransportShutdown
	}
	t.pipes[p] = struct{}{}
	t.mu.Unlock()
	p.wg.Add(2)
	go p.writeLoop()
	go p.readLoop()
	return p, nil
}

// AppendEntries queues args for sending and returns its future. It waits
// while MaxInFlight requests await their responses, and fails once the
// pipeline has.
func (p *pipeline) AppendEntries(args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) (raft.AppendFuture, error) {
	select {
	case p.slots <- struct{}{}:
	case <-p.closed:
		return p.refuse(args, resp)
	}
	f := &appendFuture{start: time.Now(), args: args, resp: resp}
	f.wg.Add(1)
	p.mu.Lock()
	if p.err != nil {
		p.mu.Unlock()
		return p.refuse(args, resp)
	}
	mark := len(p.pending)
	var err error
	p.pending, err = appendRequest(p.pending, args, p.t.cfg.MaxFrame)
	if err != nil {
		p.pending = p.pending[:mark]
		p.mu.Unlock()
		<-p.slots
		return nil, err
	}
	p.sent <- f
	p.mu.Unlock()
	p.t.stats.pipelined.Add(1)
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return f, nil
}

// refuse answers AppendEntries on a failed pipeline: after a delivered
// failure, with a future that has failed; otherwise with the error.
func (p *pipeline) refuse(args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) (raft.AppendFuture, error) {
	p.mu.Lock()
	err, shut := p.err, p.shut
	p.mu.Unlock()
	switch {
	case shut:
		return nil, raft.ErrPipelineShutdown
	case err == ErrPipelineRejected:
		return &appendFuture{start: time.Now(), args: args, resp: resp, err: err}, nil
	}
	return nil, err
}

// Consumer delivers the answered futures, in the order they were sent.
func (p *pipeline) Consumer() <-chan raft.AppendFuture { return p.done }

// Close fails the pipeline, closes its connection and waits for its
// goroutines. Unanswered futures complete with raft.ErrPipelineShutdown.
func (p *pipeline) Close() error {
	p.mu.Lock()
	p.shut = true
	p.mu.Unlock()
	p.fail(raft.ErrPipelineShutdown)
	p.wg.Wait()
	return nil
}

func (p *pipeline) failure() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// fail records the pipeline's first failure, wakes everything waiting
// and closes the connection.
func (p *pipeline) fail(err error) {
	p.mu.Lock()
	if p.err != nil {
		p.mu.Unlock()
		return
	}
	p.err = err
	close(p.closed)
	p.mu.Unlock()
	p.t.release(p.c)
	p.t.mu.Lock()
	delete(p.t.pipes, p)
	p.t.mu.Unlock()
}

// writeLoop writes the pending frames: all that are pending at once, so
// requests queued while a write is in progress go out in the next one.
func (p *pipeline) writeLoop() {
	defer p.wg.Done()
	var out []byte
	for {
		select {
		case <-p.wake:
		case <-p.closed:
			return
		}
		p.mu.Lock()
		out, p.pending = p.pending, out[:0]
		p.mu.Unlock()
		if len(out) == 0 {
			continue
		}
		p.c.c.SetWriteDeadline(time.Now().Add(p.t.cfg.Timeout))
		if _, err := p.c.c.Write(out); err != nil {
			p.fail(err)
			return
		}
		if cap(out) > retainLimit {
			out = nil
		}
	}
}

// readLoop decodes the responses in order and delivers their futures.
func (p *pipeline) readLoop() {
	defer p.wg.Done()
	defer p.drain()
	for {
		var f *appendFuture
		select {
		case f = <-p.sent:
		case <-p.closed:
			return
		}
		p.c.c.SetReadDeadline(time.Now().Add(p.t.cfg.Timeout))
		remote, err := p.c.recv(typeAppendEntries, f.resp, p.t.cfg.MaxFrame)
		if err != nil {
			p.fail(err)
			f.complete(p.failure())
			return
		}
		<-p.slots
		f.complete(remote)
		select {
		case p.done <- f:
		case <-p.closed:
			return
		}
		if remote != nil || !f.resp.Success {
			p.t.stats.pipelineRejected.Add(1)
			p.fail(ErrPipelineRejected)
			return
		}
	}
}

// drain completes the futures still awaiting a response, once the
// pipeline has failed (so no more are queued).
func (p *pipeline) drain() {
	err := p.failure()
	for {
		select {
		case f := <-p.sent:
			f.complete(err)
		default:
			return
		}
	}
}

// appendFuture is a pipelined AppendEntries.
type appendFuture struct {
	start time.Time
	args  *raft.AppendEntriesRequest
	resp  *raft.AppendEntriesResponse
	err   error
	wg    sync.WaitGroup // done when the response or a failure arrived
}

func (f *appendFuture) complete(err error) {
	f.err = err
	f.wg.Done()
}

// Error waits for the response and returns the error it came with, or
// why none came.
func (f *appendFuture) Error() error {
	f.wg.Wait()
	return f.err
}

// Start is when the request was queued.
func (f *appendFuture) Start() time.Time { return f.start }

// Request is the request.
func (f *appendFuture) Request() *raft.AppendEntriesRequest { return f.args }

// Response is the response; valid once Error returned nil.
func (f *appendFuture) Response() *raft.AppendEntriesResponse { return f.resp }
