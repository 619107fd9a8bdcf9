package consensus

import (
	"sync"

	"github.com/hashicorp/raft"
)

// zxidCache remembers the zxids of the entries applied on this server
// while the trace records, so that the trace can show the zxids the
// messages carried. A zxid is term<<32 | the count of transactions
// applied in that term (fsm.go): only the apply assigns it, and a leader
// sends an entry before it is committed, let alone applied. So a record
// keeps the index and term of its first and last transaction and looks
// them up here when it is read (tracer.read), by then usually applied.
// Both tables are fixed rings: an entry applied long ago is forgotten.
type zxidCache struct {
	mu      sync.Mutex
	byIndex [zxidSlots]zxidSlot
	// bySeq maps this server's own proposals, by number, to where they
	// landed: what a forward record needs.
	bySeq [seqSlots]seqSlot
}

const (
	zxidSlots = 8192
	seqSlots  = 2048
)

type zxidSlot struct {
	at   position
	zxid int64
}

type seqSlot struct {
	seq, index uint64
	zxid       int64
}

// appliedZxid is one transaction the FSM applied: its entry, its zxid,
// and its proposal number when this server proposed it (else 0).
type appliedZxid struct {
	at   position
	zxid int64
	seq  uint64
}

func newZxidCache() *zxidCache { return &zxidCache{} }

// note remembers applied transactions.
func (c *zxidCache) note(applied []appliedZxid) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, a := range applied {
		c.byIndex[a.at.index%zxidSlots] = zxidSlot{at: a.at, zxid: a.zxid}
		if a.seq != 0 {
			c.bySeq[a.seq%seqSlots] = seqSlot{seq: a.seq, index: a.at.index, zxid: a.zxid}
		}
	}
}

// zxid returns the zxid of the transaction at p, if remembered.
func (c *zxidCache) zxid(p position) int64 {
	if s := c.byIndex[p.index%zxidSlots]; s.at == p {
		return s.zxid
	}
	return 0
}

// resolve fills in m's zxids from what was applied here.
func (c *zxidCache) resolve(m *TraceMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.Kind == TraceForward {
		if s := c.bySeq[m.proposal%seqSlots]; s.seq == m.proposal && s.seq != 0 {
			m.FirstIndex, m.LastIndex, m.FirstZxid, m.LastZxid = s.index, s.index, s.zxid, s.zxid
		}
		return
	}
	first, last := c.zxid(m.firstCmd), c.zxid(m.lastCmd)
	if first != 0 && last != 0 {
		m.FirstZxid, m.LastZxid = first, last
	}
}

// commandRange returns the positions of the first and last transaction
// entries among entries, and how many there are.
func commandRange(entries []*raft.Log) (first, last position, n int) {
	for _, e := range entries {
		if e.Type != raft.LogCommand {
			continue
		}
		if n == 0 {
			first = position{e.Index, e.Term}
		}
		last = position{e.Index, e.Term}
		n++
	}
	return first, last, n
}

// noteApplied hands the transactions a batch applied to the cache, when
// the trace records (the FSM calls it after releasing its lock).
func (t *tracer) noteApplied(applied []appliedZxid) {
	if c := t.zxidCache(); c != nil && len(applied) > 0 {
		c.note(applied)
	}
}

// zxidCache returns the cache, nil before recording first started.
func (t *tracer) zxidCache() *zxidCache {
	if t == nil {
		return nil
	}
	return t.zxids.Load()
}
