package consensus

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// Kind says what a log entry does.
type Kind byte

// Log entry kinds.
const (
	// KindTxn applies a datatree transaction (create, delete, setData, setACL, multi, deleteContainer).
	KindTxn Kind = 1
	// KindCreateSession adds a session to the replicated table.
	KindCreateSession Kind = 2
	// KindCloseSession removes a session and deletes its ephemerals.
	KindCloseSession Kind = 3
	// KindError records a write that failed before it became a transaction.
	// Like ZooKeeper's error txn it changes nothing but consumes a zxid, so
	// zxids advance exactly as on a ZooKeeper server.
	KindError Kind = 4
	// KindConfig records a membership change (reconfig): every replica
	// writes the new membership into /zookeeper/config.
	KindConfig Kind = 5
)

// Command is one Raft log entry.
type Command struct {
	Kind    Kind
	Session int64     // session created or closed (KindCreateSession, KindCloseSession)
	Timeout int32     // negotiated timeout in ms (KindCreateSession)
	Time    int64     // proposer's wall clock in ms (session kinds; KindTxn carries its own)
	Code    wire.Code // the failure (KindError)
	Txn     *datatree.Txn
	Members []Peer // the new membership (KindConfig)

	// Origin and Seq identify the proposal on the server that made it, so
	// that server can answer its client when it applies the entry itself
	// (a follower forwards proposals to the leader). Origin 0 means none.
	Origin int64
	Seq    uint64
}

// Encode appends the command's encoding.
func (c *Command) Encode(e *wire.Encoder) {
	e.Int(int32(c.Kind))
	e.Long(c.Origin)
	e.Long(int64(c.Seq))
	switch c.Kind {
	case KindTxn:
		c.Txn.Encode(e)
	case KindCreateSession:
		e.Long(c.Session)
		e.Int(c.Timeout)
		e.Long(c.Time)
	case KindCloseSession:
		e.Long(c.Session)
		e.Long(c.Time)
	case KindError:
		e.Int(int32(c.Code))
	case KindConfig:
		e.Long(c.Time)
		encodePeers(e, c.Members)
	}
}

// encoders are scratch space for encodeCommand.
var encoders = sync.Pool{New: func() any { return new(wire.Encoder) }}

// encodeCommand returns cmd's encoding in a buffer of exactly its size (a
// log entry is kept for a long time, so growth slack would be kept too).
func encodeCommand(cmd *Command) []byte {
	e := encoders.Get().(*wire.Encoder)
	e.Reset()
	cmd.Encode(e)
	out := bytes.Clone(e.Bytes())
	if e.Len() <= maxPooledEncoder {
		encoders.Put(e)
	}
	return out
}

// maxPooledEncoder keeps one huge command from pinning its buffer.
const maxPooledEncoder = 64 << 10

// commandOrigin reads the Origin and Seq of an encoded command without
// decoding the rest (see Command.Encode).
func commandOrigin(b []byte) (origin int64, seq uint64, ok bool) {
	if len(b) < 20 {
		return 0, 0, false
	}
	return int64(binary.BigEndian.Uint64(b[4:])), binary.BigEndian.Uint64(b[12:]), true
}

// DecodeCommand decodes one log entry. A failure means a corrupt log.
// The command's buffers (a create's or setData's data) are slices of b,
// which Raft hands over for this decode and nobody changes afterwards; the
// tree copies what it keeps.
func DecodeCommand(b []byte) (*Command, error) {
	d := wire.NewDecoder(b, 0)
	d.AliasBuffers()
	c := &Command{Kind: Kind(d.Int()), Origin: d.Long()}
	c.Seq = uint64(d.Long())
	switch c.Kind {
	case KindTxn:
		c.Txn = &datatree.Txn{}
		c.Txn.Decode(d)
	case KindCreateSession:
		c.Session = d.Long()
		c.Timeout = d.Int()
		c.Time = d.Long()
	case KindCloseSession:
		c.Session = d.Long()
		c.Time = d.Long()
	case KindError:
		c.Code = wire.Code(d.Int())
	case KindConfig:
		c.Time = d.Long()
		c.Members = decodePeers(d)
	default:
		return nil, fmt.Errorf("consensus: unknown log entry kind %d", c.Kind)
	}
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("consensus: decode %d entry: %w", c.Kind, err)
	}
	return c, nil
}
