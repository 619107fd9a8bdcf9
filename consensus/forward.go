package consensus

import (
	"bufio"
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/internal/acceptretry"
	"github.com/zkraft/zkraft/wire"
)

// The forwarding channel runs on each server's election port, which Raft
// does not need: a follower sends its clients' proposals, the sessions it
// saw alive and its sync requests to the leader over it. Frames are
// wire-framed records starting with a frame type.
const (
	fwdPropose      int32 = 1  // follower → leader: seq, command bytes
	fwdTouch        int32 = 2  // follower → leader: session ids seen alive
	fwdSync         int32 = 3  // follower → leader: seq
	fwdReconfig     int32 = 4  // follower → leader: seq, KindConfig command, base config version
	fwdRemoved      int32 = 5  // leader → removed server: index of the entry that removed it
	fwdStatus       int32 = 6  // follower → leader, only when asked: id, figures (status.go)
	fwdResult       int32 = 11 // leader → follower: seq, result code
	fwdSyncDone     int32 = 13 // leader → follower: seq, result code, leader's last log index
	fwdReconfigDone int32 = 14 // leader → follower: seq, result code, config zxid
	fwdStatusAsk    int32 = 16 // leader → follower: 0, the figures it holds (status.go)
)

// Result codes of fwdResult.
const (
	fwdOK        int32 = 0
	fwdNotLeader int32 = 1
	fwdFailed    int32 = 2
	// fwdRefused: not the leader, and neither this proposal nor any later
	// one on the same connection reaches Raft, so the follower may resend
	// them elsewhere (see forwardhold.go). Older servers never send it; to
	// them it is a failure like fwdNotLeader.
	fwdRefused int32 = 3
	// Outcomes of fwdReconfigDone only: another membership change is
	// running (ErrReconfigInProgress), the membership was computed from a
	// replaced configuration (ErrConfigChanged).
	fwdInProgress int32 = 4
	fwdStale      int32 = 5
)

const fwdMaxFrame = 64 << 20

// forwardServer is the leader side: it proposes what followers send.
type forwardServer struct {
	n     *Node
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]chan []byte // each connection's unsolicited frames (status asks)
	// stop is closed by close.
	stop   chan struct{}
	closed bool
}

func startForwardServer(n *Node, addr string) (*forwardServer, error) {
	ln, err := n.network.Listen(addr)
	if err != nil {
		return nil, err
	}
	// Accept waits out failures (too many open files...) until the
	// listener is closed: one EMFILE used to end this loop, and the
	// leader then took no follower's link until it was restarted.
	fs := &forwardServer{n: n, ln: acceptretry.Wrap(ln, n.log, "forwarding (election) port"),
		conns: make(map[net.Conn]chan []byte), stop: make(chan struct{})}
	fs.wg.Add(1)
	go fs.accept()
	return fs, nil
}

func (fs *forwardServer) accept() {
	defer fs.wg.Done()
	for {
		nc, err := fs.ln.Accept()
		if err != nil {
			return // closed: acceptretry returns no other error
		}
		fs.mu.Lock()
		if fs.closed {
			fs.mu.Unlock()
			nc.Close()
			return
		}
		asks := make(chan []byte, 1)
		fs.conns[nc] = asks
		fs.wg.Add(1)
		fs.mu.Unlock()
		go fs.handle(nc, asks)
	}
}

func (fs *forwardServer) close() {
	fs.mu.Lock()
	if !fs.closed {
		close(fs.stop)
	}
	fs.closed = true
	for nc := range fs.conns {
		nc.Close()
	}
	fs.mu.Unlock()
	fs.ln.Close()
	fs.wg.Wait()
}

// fwdReply is one answer the leader owes a follower, in arrival order.
type fwdReply struct {
	seq   uint64
	fut   raft.ApplyFuture // a proposal: its result code once committed
	code  int32            // a proposal refused at once
	sync  bool
	index uint64
	// reconfig delivers the outcome of a membership change run by its
	// own goroutine.
	reconfig chan reconfigOutcome
}

// reconfigOutcome is a membership change's result code and, on success,
// the zxid of its config entry.
type reconfigOutcome struct {
	code int32
	zxid int64
}

// handle reads one follower's frames; proposals are appended to the Raft
// log in arrival order, and answered in the same order by a writer.
func (fs *forwardServer) handle(nc net.Conn, asks <-chan []byte) {
	defer fs.wg.Done()
	replies := make(chan fwdReply, 1024)
	done := make(chan struct{})
	go func() { fs.writeReplies(nc, replies, asks); close(done) }()
	defer func() {
		close(replies)
		<-done
		nc.Close()
		fs.mu.Lock()
		delete(fs.conns, nc)
		fs.mu.Unlock()
	}()
	br := bufio.NewReader(nc)
	refusing := false // a proposal was refused: so is every later one
	for {
		// A follower sends at least a keepalive every linkTime/4: a peer
		// that connects and stalls is closed, not kept for good.
		nc.SetReadDeadline(time.Now().Add(fs.n.linkTime))
		frame, err := wire.ReadFrame(br, fwdMaxFrame, nil)
		if err != nil {
			fs.logStall(nc, err)
			return
		}
		d := wire.NewDecoder(frame, 0)
		switch d.Int() {
		case fwdPropose:
			seq, cmd := uint64(d.Long()), d.Buffer()
			// A leader starting a new term refuses too (rollover.go):
			// the follower holds the proposal for the next leader.
			if refusing || fs.n.raft.State() != raft.Leader || fs.n.admit() != nil {
				refusing = true
				replies <- fwdReply{seq: seq, code: fwdRefused}
			} else {
				fs.n.metrics.proposed(len(cmd))
				replies <- fwdReply{seq: seq, fut: fs.n.raft.Apply(cmd, 0)}
			}
		case fwdTouch:
			fs.n.handleTouch(decodeIDs(d))
			// Optional trailing field, which older leaders ignore: the
			// follower's console is watched (status.go).
			if d.Remaining() >= 4 && d.Int() == touchWatched {
				if d.Remaining() >= 4 && d.Int() == touchTrace {
					fs.n.trace.want(traceHold) // and the members' traces (msgexchange.go)
				}
				fs.n.watchPeersHere(fs)
			}
		case fwdStatus:
			id, data := d.Long(), d.Buffer()
			if d.Err() == nil {
				fs.n.status.store(id, data, time.Now())
				fs.n.readTraceAnswer(id, d)
			}
		case fwdReconfig:
			seq, cmd := uint64(d.Long()), d.Buffer()
			base := int64(-1) // older followers send no base
			if d.Remaining() >= 8 {
				base = d.Long()
			}
			done := make(chan reconfigOutcome, 1)
			go func() { done <- reconfigCode(fs.n, cmd, base) }()
			replies <- fwdReply{seq: seq, reconfig: done}
		case fwdRemoved:
			fs.n.noteRemovedAt(uint64(d.Long()))
			return
		case fwdSync:
			r := fwdReply{seq: uint64(d.Long()), sync: true, code: fwdNotLeader}
			if fs.n.raft.State() == raft.Leader {
				// Only a leader's last index bounds what is committed.
				r.code, r.index = fwdOK, fs.n.raft.LastIndex()
			}
			replies <- r
		default:
			return
		}
	}
}

// logStall says why a follower's connection was closed when it stalled.
func (fs *forwardServer) logStall(nc net.Conn, err error) {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() && fs.n.log != nil {
		fs.n.log.Warn("closing forwarding connection: the peer sent nothing, not even a keepalive, within the link timeout",
			"remote", nc.RemoteAddr().String(), "timeout", fs.n.linkTime)
	}
}

func resultCode(r fwdReply) int32 {
	if r.fut == nil {
		return r.code
	}
	switch err := r.fut.Error(); {
	case err == nil:
		return fwdOK
	case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrLeadershipLost):
		return fwdNotLeader
	default:
		return fwdFailed
	}
}

// reconfigCode runs a follower's membership change (an encoded KindConfig
// command computed from configuration version base) on this leader.
func reconfigCode(n *Node, data []byte, base int64) reconfigOutcome {
	cmd, err := DecodeCommand(data)
	if err != nil || cmd.Kind != KindConfig {
		return reconfigOutcome{code: fwdFailed}
	}
	if n.raft.State() != raft.Leader {
		return reconfigOutcome{code: fwdNotLeader}
	}
	zxid, err := n.reconfigureHere(cmd, base)
	switch {
	case err == nil:
		return reconfigOutcome{code: fwdOK, zxid: zxid}
	case errors.Is(err, ErrNotLeader):
		return reconfigOutcome{code: fwdNotLeader}
	case errors.Is(err, ErrReconfigInProgress):
		return reconfigOutcome{code: fwdInProgress}
	case errors.Is(err, ErrConfigChanged):
		return reconfigOutcome{code: fwdStale}
	}
	return reconfigOutcome{code: fwdFailed}
}

func frameBytes(payload []byte) []byte {
	out := make([]byte, 4, 4+len(payload))
	n := len(payload)
	out[0], out[1], out[2], out[3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	return append(out, payload...)
}

func encodeIDs(e *wire.Encoder, ids []int64) {
	e.Int(int32(len(ids)))
	for _, id := range ids {
		e.Long(id)
	}
}

func decodeIDs(d *wire.Decoder) []int64 {
	n := d.Count(8)
	out := make([]int64, 0, d.Prealloc(n, 8))
	for i := 0; i < n && d.Err() == nil; i++ {
		out = append(out, d.Long())
	}
	return out
}

// forwardClient is the follower side: one connection to the current
// leader's election port, re-dialled when the leader changes.
type forwardClient struct {
	n         *Node
	mu        sync.Mutex
	conn      net.Conn
	connDone  chan struct{} // closed when conn is dropped (ends keepalive)
	leader    raft.ServerID
	inflight  map[uint64]heldProposal    // proposals sent on conn, not yet answered
	sent      uint64                     // numbers inflight proposals in the order sent
	syncs     map[uint64]chan syncResult // sync requests waiting for the leader's index
	syncSeq   uint64
	reconfigs map[uint64]chan reconfigResult
	held      heldProposals // proposals waiting for a leader (forwardhold.go)
	// retiring is when Raft first named another leader while proposals
	// were still in flight on conn (zero when not); refusedBy and
	// refusedAt name the server that last refused proposals, and when.
	retiring  time.Time
	refusedBy raft.ServerID
	refusedAt time.Time
	wg        sync.WaitGroup
	closed    bool
}

type syncResult struct {
	index uint64
	err   error
}

func newForwardClient(n *Node) *forwardClient {
	return &forwardClient{n: n, inflight: make(map[uint64]heldProposal), syncs: make(map[uint64]chan syncResult),
		reconfigs: make(map[uint64]chan reconfigResult)}
}

// connLocked returns a connection to the current leader, dialling if needed.
func (c *forwardClient) connLocked() (net.Conn, error) {
	if c.closed {
		return nil, ErrShutdown
	}
	_, id := c.n.raft.LeaderWithID()
	if id == "" {
		return nil, ErrNotLeader
	}
	if c.conn != nil && c.leader == id {
		return c.conn, nil
	}
	if c.waitForOldLeaderLocked(id) {
		return nil, ErrNotLeader
	}
	c.dropLocked(ErrNotLeader)
	peer, ok := c.n.peer(id)
	if !ok {
		return nil, ErrNotLeader
	}
	nc, err := c.n.network.Dial(peer.ForwardAddr, 5*time.Second)
	if err != nil {
		// The leader Raft names cannot be reached: most likely its process
		// died (see leaderloss.go).
		if c.n.timeouts != nil {
			c.n.timeouts.suspectLeader(id)
		}
		return nil, ErrNotLeader
	}
	c.conn, c.leader = nc, id
	c.connDone = make(chan struct{})
	c.wg.Add(2)
	go c.readLoop(nc)
	go c.keepalive(nc, c.connDone)
	return nc, nil
}

// keepalive sends an empty touch every linkTime/4, so that the leader,
// which closes a forwarding connection silent for linkTime, keeps this
// one. Leaders that predate the keepalive take it as a touch of no
// sessions.
func (c *forwardClient) keepalive(nc net.Conn, done <-chan struct{}) {
	defer c.wg.Done()
	tick := time.NewTicker(c.n.linkTime / 4)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		c.ping(nc)
	}
}

// ping sends the keepalive on nc, unless nc has been replaced.
func (c *forwardClient) ping(nc net.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nc {
		return
	}
	var e wire.Encoder
	e.Int(fwdTouch)
	encodeIDs(&e, nil)
	nc.SetWriteDeadline(time.Now().Add(c.n.linkTime))
	if _, err := nc.Write(frameBytes(e.Bytes())); err != nil {
		c.dropLocked(ErrNotLeader)
	}
}

// dropLocked closes the connection and fails everything waiting on it.
func (c *forwardClient) dropLocked(err error) {
	if c.conn == nil {
		return
	}
	c.conn.Close()
	c.conn = nil
	close(c.connDone)
	for seq := range c.inflight {
		c.n.fsm.waiters.deliver(seq, outcome{err: err})
	}
	c.inflight = make(map[uint64]heldProposal)
	for seq, ch := range c.syncs {
		ch <- syncResult{err: err}
		delete(c.syncs, seq)
	}
	for seq, ch := range c.reconfigs {
		ch <- reconfigResult{err: err}
		delete(c.reconfigs, seq)
	}
}

func (c *forwardClient) send(payload []byte, register func()) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.sendLocked(payload, register)
	return err
}

// sendLocked sends payload to the leader; sent tells whether any of it may
// have left this server (false: no leader to send it to, or shut down).
func (c *forwardClient) sendLocked(payload []byte, register func()) (sent bool, err error) {
	nc, err := c.connLocked()
	if err != nil {
		return false, err
	}
	register()
	// A leader that stops reading must not hold c.mu, and every proposal
	// of this server behind it, for good.
	nc.SetWriteDeadline(time.Now().Add(c.n.linkTime))
	if _, err := nc.Write(frameBytes(payload)); err != nil {
		c.dropLocked(ErrNotLeader)
		go c.linkLost()
		return true, ErrNotLeader
	}
	return true, nil
}

// touch sends the ids of sessions seen alive; losing it is harmless.
func (c *forwardClient) touch(ids []int64) {
	var e wire.Encoder
	e.Int(fwdTouch)
	encodeIDs(&e, ids)
	c.send(e.Bytes(), func() {})
}

// nextSeq numbers a sync or reconfig request on this channel.
func (c *forwardClient) nextSeq() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.syncSeq++
	return c.syncSeq
}

// leaderIndex asks the leader for its last log index.
func (c *forwardClient) leaderIndex() (<-chan syncResult, error) {
	ch := make(chan syncResult, 1)
	seq := c.nextSeq()
	var e wire.Encoder
	e.Int(fwdSync)
	e.Long(int64(seq))
	err := c.send(e.Bytes(), func() { c.syncs[seq] = ch })
	return ch, err
}

// ErrReconfigFailed is returned when the leader could not change the
// membership (for example, a new member never caught up).
var ErrReconfigFailed = errors.New("consensus: membership change failed")

// reconfig asks the leader to run a membership change (a KindConfig
// command computed from configuration version base) and waits for the
// zxid of its config entry.
func (c *forwardClient) reconfig(ctx context.Context, cmd *Command, base int64) (int64, error) {
	ch := make(chan reconfigResult, 1)
	seq := c.nextSeq()
	var e wire.Encoder
	e.Int(fwdReconfig)
	e.Long(int64(seq))
	e.Buffer(encodeCommand(cmd))
	e.Long(base)
	if err := c.send(e.Bytes(), func() { c.reconfigs[seq] = ch }); err != nil {
		return 0, err
	}
	select {
	case r := <-ch:
		return r.zxid, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

type reconfigResult struct {
	zxid int64
	err  error
}

func (c *forwardClient) readLoop(nc net.Conn) {
	defer c.wg.Done()
	br := bufio.NewReader(nc)
	for {
		frame, err := wire.ReadFrame(br, fwdMaxFrame, nil)
		if err != nil {
			c.mu.Lock()
			lost := c.conn == nc // not dropped on purpose
			if lost {
				c.dropLocked(ErrNotLeader)
			}
			c.mu.Unlock()
			if lost {
				c.linkLost()
			}
			return
		}
		c.dispatch(nc, wire.NewDecoder(frame, 0))
	}
}

// dispatch handles one frame read from nc. Frames still buffered from a
// connection that has been dropped are ignored: dropping it failed or
// held again everything that was waiting on it, and a late answer for a
// proposal held again (a second refusal behind the first) must not fail
// its waiter while the proposal is resent and applied.
func (c *forwardClient) dispatch(nc net.Conn, d *wire.Decoder) {
	typ, seq := d.Int(), uint64(d.Long())
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nc {
		return
	}
	switch typ {
	case fwdResult:
		code := d.Int()
		c.n.trace.forwardAnswered(seq, c.leader, code)
		switch {
		case code == fwdRefused && c.inflight[seq].payload != nil:
			c.holdRefusedLocked()
		case code != fwdOK:
			c.n.fsm.waiters.deliver(seq, outcome{err: ErrNotLeader})
		}
		delete(c.inflight, seq)
	case fwdReconfigDone:
		if ch := c.reconfigs[seq]; ch != nil {
			switch code, zxid := d.Int(), d.Long(); code {
			case fwdOK:
				ch <- reconfigResult{zxid: zxid}
			case fwdNotLeader:
				ch <- reconfigResult{err: ErrNotLeader}
			case fwdInProgress:
				ch <- reconfigResult{err: ErrReconfigInProgress}
			case fwdStale:
				ch <- reconfigResult{err: ErrConfigChanged}
			default:
				ch <- reconfigResult{err: ErrReconfigFailed}
			}
			delete(c.reconfigs, seq)
		}
	case fwdStatusAsk:
		c.statusAsked(nc, d)
	case fwdSyncDone:
		code, index := d.Int(), uint64(d.Long())
		if ch := c.syncs[seq]; ch != nil {
			if code == fwdOK {
				ch <- syncResult{index: index}
			} else {
				ch <- syncResult{err: ErrNotLeader}
			}
			delete(c.syncs, seq)
		}
	}
}

func (c *forwardClient) close() {
	c.mu.Lock()
	c.closed = true
	c.dropLocked(ErrShutdown)
	c.mu.Unlock()
	c.wg.Wait()
}
