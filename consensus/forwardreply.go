package consensus

import (
	"bufio"
	"net"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// replyBuffer is how many bytes of answers the leader gathers into one
// write to a follower.
const replyBuffer = 64 << 10

// writeReplies answers one follower's proposals, syncs and membership
// changes in the order they arrived, and sends the leader's asks to it
// (status.go). A resolver waits for each outcome in turn (a proposal's
// commit, a membership change's goroutine) and hands the encoded answer on;
// the writer sends every answer that is ready in one write. Under load one
// commit completes many proposals at once, and each used to cost a write
// of its own (a tenth of a leader's CPU with 64 sessions).
//
// A failed write closes the connection (the follower then fails or holds
// what waits on it); the answers still coming are resolved and dropped,
// so that the reader is never blocked.
func (fs *forwardServer) writeReplies(nc net.Conn, replies <-chan fwdReply, asks <-chan []byte) {
	ready := make(chan []byte, cap(replies))
	go func() {
		defer close(ready)
		for r := range replies {
			ready <- frameBytes(encodeReply(r))
		}
	}()
	bw := bufio.NewWriterSize(nc, replyBuffer)
	failed := false
	add := func(b []byte) {
		if !failed {
			bw.Write(b) // an error is kept by bw and returned by Flush
		}
	}
	for {
		select {
		case ask := <-asks:
			add(ask)
		case b, ok := <-ready:
			if !ok {
				fs.flushReplies(nc, bw, failed)
				return
			}
			add(b)
		}
		for more := true; more; { // whatever else is ready goes in the same write
			select {
			case ask := <-asks:
				add(ask)
			case b, ok := <-ready:
				if !ok {
					fs.flushReplies(nc, bw, failed)
					return
				}
				add(b)
			default:
				more = false
			}
		}
		failed = !fs.flushReplies(nc, bw, failed)
	}
}

// flushReplies writes what bw holds, and reports whether the connection
// still works; a failed write closes it.
func (fs *forwardServer) flushReplies(nc net.Conn, bw *bufio.Writer, failed bool) bool {
	if failed {
		return false
	}
	nc.SetWriteDeadline(time.Now().Add(fs.n.linkTime))
	if err := bw.Flush(); err != nil {
		nc.Close()
		return false
	}
	return true
}

// encodeReply waits for r's outcome and encodes the answer.
func encodeReply(r fwdReply) []byte {
	var e wire.Encoder
	switch {
	case r.reconfig != nil:
		o := <-r.reconfig
		e.Int(fwdReconfigDone)
		e.Long(int64(r.seq))
		e.Int(o.code)
		e.Long(o.zxid)
	case r.sync:
		e.Int(fwdSyncDone)
		e.Long(int64(r.seq))
		e.Int(r.code)
		e.Long(int64(r.index))
	default:
		e.Int(fwdResult)
		e.Long(int64(r.seq))
		e.Int(resultCode(r))
	}
	return e.Bytes()
}
