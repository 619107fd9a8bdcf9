package consensus

import (
	"errors"
	"time"

	"github.com/zkraft/zkraft/wire"
)

// errTraceWindow is a window that holds more records than any member
// sends.
var errTraceWindow = errors.New("consensus: message trace window too large")

// encodeTraceMessage writes one record for the other members
// (msgexchange.go); what is unexported stays here.
func encodeTraceMessage(e *wire.Encoder, m *TraceMessage) {
	e.Long(int64(m.Seq))
	e.Long(m.Time.UnixNano())
	e.Long(m.LatencyUs)
	e.Long(m.From)
	e.Long(m.To)
	e.String(string(m.Kind))
	for _, v := range []uint64{m.Term, m.PrevIndex, m.PrevTerm, m.Commit} {
		e.Long(int64(v))
	}
	e.Int(int32(m.Entries))
	e.Int(int32(m.Commands))
	for _, v := range []uint64{m.FirstIndex, m.LastIndex, m.EntryTerm} {
		e.Long(int64(v))
	}
	e.Long(m.FirstZxid)
	e.Long(m.LastZxid)
	e.Bool(m.OK)
	e.Long(int64(m.RespTerm))
	e.String(m.Error)
	e.String(string(m.Phase))
	e.String(m.Zab)
}

// decodeTraceMessage reads what encodeTraceMessage wrote.
func decodeTraceMessage(d *wire.Decoder) TraceMessage {
	var m TraceMessage
	m.Seq = uint64(d.Long())
	m.Time = time.Unix(0, d.Long())
	m.LatencyUs = d.Long()
	m.From, m.To = d.Long(), d.Long()
	m.Kind = TraceKind(d.String())
	for _, v := range []*uint64{&m.Term, &m.PrevIndex, &m.PrevTerm, &m.Commit} {
		*v = uint64(d.Long())
	}
	m.Entries, m.Commands = int(d.Int()), int(d.Int())
	for _, v := range []*uint64{&m.FirstIndex, &m.LastIndex, &m.EntryTerm} {
		*v = uint64(d.Long())
	}
	m.FirstZxid, m.LastZxid = d.Long(), d.Long()
	m.OK = d.Bool()
	m.RespTerm = uint64(d.Long())
	m.Error = d.String()
	m.Phase = Phase(d.String())
	m.Zab = d.String()
	return m
}

// The ops (TraceMessage.Op) travel after the windows, so that a member
// of an older version, which reads the windows and stops, still reads
// them: for each window in order, the count of records that name an op,
// then each one's position in the window and its op.

// encodeWindowOps writes the ops of a window's records.
func encodeWindowOps(e *wire.Encoder, msgs []TraceMessage) {
	n := 0
	for i := range msgs {
		if msgs[i].Op != "" {
			n++
		}
	}
	e.Int(int32(n))
	for i := range msgs {
		if msgs[i].Op != "" {
			e.Int(int32(i))
			e.String(msgs[i].Op)
		}
	}
}

// decodeWindowOps reads what encodeWindowOps wrote into the records
// decoded before it; each op is cut to opMax.
func decodeWindowOps(d *wire.Decoder, msgs []TraceMessage) {
	k := d.Count(8)
	if k > len(msgs) {
		d.Fail(errTraceWindow)
		return
	}
	for j := 0; j < k && d.Err() == nil; j++ {
		i, op := int(d.Int()), d.String()
		if d.Err() == nil && i >= 0 && i < len(msgs) {
			msgs[i].Op = cutText(op, opMax)
		}
	}
}
