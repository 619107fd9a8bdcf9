package wire

import "errors"

// ErrUnknownMultiOp is reported by MultiRequest.Decode and
// MultiResponse.Decode for an op or result type they do not know.
// CodeOf maps it to CodeMarshallingError.
var ErrUnknownMultiOp = errors.New("wire: unknown op type in multi")

// MultiHeader precedes every op of a MultiRequest and every result of a
// MultiResponse; a header with Done set ends the list.
type MultiHeader struct {
	// Type is the op or result type; -1 in the terminator and in error results.
	Type Op
	// Done marks the terminating header.
	Done bool
	// Err is -1 in requests; in responses the error code of the result.
	Err Code
}

// multiHeaderSize is the encoded size of a MultiHeader.
const multiHeaderSize = 4 + 1 + 4

// Encode implements Record.
func (h *MultiHeader) Encode(e *Encoder) {
	e.Int(int32(h.Type))
	e.Bool(h.Done)
	e.Int(int32(h.Err))
}

// Decode implements Record.
func (h *MultiHeader) Decode(d *Decoder) {
	h.Type = Op(d.Int())
	h.Done = d.Bool()
	h.Err = Code(d.Int())
}

// multiTerminator ends both MultiRequest and MultiResponse.
var multiTerminator = MultiHeader{Type: OpError, Done: true, Err: CodeSystemError}

// MultiOp is one op of a multi (14) or multiRead (22) request.
//
// Type is kept exactly as sent. Note that ZooKeeper's server rebuilds a
// create op from its flags (Op.create in MultiOperationRecord): headers 1, 15
// and 19 all decode a CreateRequest and the effective opcode becomes
// createContainer for flags 4, createTTL for flags 5/6 and create otherwise;
// a create2 header therefore yields a type-1 (path-only) result.
type MultiOp struct {
	// Type is the op type from the op's MultiHeader.
	Type Op
	// Record is the op's request body: *CreateRequest, *CreateTTLRequest,
	// *DeleteRequest, *SetDataRequest, *CheckVersionRequest,
	// *GetDataRequest or *GetChildrenRequest.
	Record Record
}

// MultiRequest is the body of multi (14) and multiRead (22) (ZooKeeper's
// MultiOperationRecord).
type MultiRequest struct {
	// Ops are the ops in request order.
	Ops []MultiOp
	// nullPathOp is 1 + the index of the first op whose path was null on
	// the wire (decoded as ""), or 0.
	nullPathOp int
}

// NullPathOp returns the index of the first op whose path arrived null
// (jute length -1), if any. Every multi op's record starts with its path.
func (m *MultiRequest) NullPathOp() (int, bool) { return m.nullPathOp - 1, m.nullPathOp > 0 }

// multiOpRecord returns a fresh request record for an op type allowed inside
// a multi, or nil.
func (d *Decoder) multiOpRecord(t Op) Record {
	switch t {
	case OpCreate, OpCreate2, OpCreateContainer:
		return &d.creates.take(1)[0]
	case OpCreateTTL:
		return &CreateTTLRequest{}
	case OpDelete:
		return &DeleteRequest{}
	case OpSetData:
		return &SetDataRequest{}
	case OpCheck:
		return &CheckVersionRequest{}
	case OpGetData:
		return &GetDataRequest{}
	case OpGetChildren:
		return &GetChildrenRequest{}
	}
	return nil
}

// isMultiReadOp reports whether t is a read op of a multiRead.
func isMultiReadOp(t Op) bool { return t == OpGetData || t == OpGetChildren }

// Encode implements Record. Each op is written as MultiHeader{Type, false,
// -1} followed by its record (nothing if Record is nil), then the
// terminator {-1, true, -1}.
func (m *MultiRequest) Encode(e *Encoder) {
	for _, op := range m.Ops {
		h := MultiHeader{Type: op.Type, Err: -1}
		h.Encode(e)
		if op.Record != nil {
			op.Record.Encode(e)
		}
	}
	multiTerminator.Encode(e)
}

// Decode implements Record. It reads headers and op records until a header
// with Done set; an op type not allowed in a multi fails with
// ErrUnknownMultiOp. Every op consumes at least a 9-byte header, so the
// number of ops is bounded by the frame size.
//
// The ops are gathered in an array on the stack and copied once into a
// slice of their exact number; create records come from the decoder's slab
// (slab.go).
func (m *MultiRequest) Decode(d *Decoder) {
	var local [128]MultiOp
	ops, nullPathOp := decodeMultiOps(d, local[:0])
	m.Ops, m.nullPathOp = nil, nullPathOp
	if len(ops) > 0 {
		m.Ops = append(make([]MultiOp, 0, len(ops)), ops...)
	}
}

// decodeMultiOps appends the ops read up to the terminator (or the first
// error) to ops, and returns them with 1 + the index of the first op whose
// path was null, or 0.
func decodeMultiOps(d *Decoder, ops []MultiOp) ([]MultiOp, int) {
	nullPathOp := 0
	var h MultiHeader
	for {
		h.Decode(d)
		if d.Err() != nil || h.Done {
			return ops, nullPathOp
		}
		rec := d.multiOpRecord(h.Type)
		if rec == nil {
			d.Fail(ErrUnknownMultiOp)
			return ops, nullPathOp
		}
		if nullPathOp == 0 && d.PeekNull() {
			nullPathOp = len(ops) + 1
		}
		rec.Decode(d)
		if d.Err() != nil {
			return ops, nullPathOp
		}
		ops = append(ops, MultiOp{Type: h.Type, Record: rec})
	}
}

// Kind classifies the ops: isRead is true when the first op is a read op
// (getData or getChildren, as allowed in multiRead), and mixed is true when
// read and write ops appear together, which ZooKeeper rejects with
// MARSHALLINGERROR. An empty request is (false, false).
func (m *MultiRequest) Kind() (isRead bool, mixed bool) {
	if len(m.Ops) == 0 {
		return false, false
	}
	isRead = isMultiReadOp(m.Ops[0].Type)
	for _, op := range m.Ops[1:] {
		if isMultiReadOp(op.Type) != isRead {
			return isRead, true
		}
	}
	return isRead, false
}

// MultiResult is one result of a MultiResponse. Which fields are used
// depends on Type:
//
//   - OpError (-1): Err (written both in the header and as ErrorResponse);
//   - OpCreate: Path;
//   - OpCreate2, OpCreateContainer, OpCreateTTL: Path and Stat, always sent
//     as type 15 (ZooKeeper reports create2 for all three);
//   - OpDelete, OpCheck: nothing;
//   - OpSetData: Stat;
//   - OpGetData: Data and Stat;
//   - OpGetChildren: Children.
//
// For success types Err is ignored and the header carries 0.
type MultiResult struct {
	// Type is the result type.
	Type Op
	// Err is the error code of an OpError result.
	Err Code
	// Path is the created path of a create result.
	Path string
	// Stat is the node Stat of create2, setData and getData results.
	Stat Stat
	// Data is the node data of a getData result.
	Data []byte
	// Children are the child names of a getChildren result.
	Children []string
}

// MultiResponse is the reply to multi (14) and multiRead (22).
type MultiResponse struct {
	// Results are the results in request order.
	Results []MultiResult
}

// Encode implements Record. A result of a type that cannot appear in a
// multi is written as an error result with CodeSystemError, so that the
// reply stays decodable.
func (m *MultiResponse) Encode(e *Encoder) {
	for i := range m.Results {
		encodeMultiResult(e, &m.Results[i])
	}
	multiTerminator.Encode(e)
}

func encodeMultiResult(e *Encoder, r *MultiResult) {
	h := MultiHeader{Type: r.Type}
	switch r.Type {
	case OpError:
		h.Err = r.Err
		h.Encode(e)
		e.Int(int32(r.Err))
	case OpCreate:
		h.Encode(e)
		e.String(r.Path)
	case OpCreate2, OpCreateContainer, OpCreateTTL:
		h.Type = OpCreate2
		h.Encode(e)
		e.String(r.Path)
		r.Stat.Encode(e)
	case OpDelete, OpCheck:
		h.Encode(e)
	case OpSetData:
		h.Encode(e)
		r.Stat.Encode(e)
	case OpGetData:
		h.Encode(e)
		e.Buffer(r.Data)
		r.Stat.Encode(e)
	case OpGetChildren:
		h.Encode(e)
		e.Strings(r.Children)
	default:
		encodeMultiResult(e, &MultiResult{Type: OpError, Err: CodeSystemError})
	}
}

// Decode implements Record. It mirrors Encode; an OpError result takes its
// Err from the ErrorResponse body, as ZooKeeper clients do. An unknown
// result type fails with ErrUnknownMultiOp.
func (m *MultiResponse) Decode(d *Decoder) {
	m.Results = nil
	var h MultiHeader
	for {
		h.Decode(d)
		if d.Err() != nil || h.Done {
			return
		}
		r := MultiResult{Type: h.Type}
		switch h.Type {
		case OpError:
			r.Err = Code(d.Int())
		case OpCreate:
			r.Path = d.String()
		case OpCreate2:
			r.Path = d.String()
			r.Stat.Decode(d)
		case OpDelete, OpCheck:
		case OpSetData:
			r.Stat.Decode(d)
		case OpGetData:
			r.Data = d.Buffer()
			r.Stat.Decode(d)
		case OpGetChildren:
			r.Children = d.Strings()
		default:
			d.Fail(ErrUnknownMultiOp)
		}
		if d.Err() != nil {
			return
		}
		m.Results = append(m.Results, r)
	}
}
