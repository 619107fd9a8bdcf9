package migrate

import (
	"errors"
	"fmt"

	"github.com/zkraft/zkraft/wire"
)

// txnHeader is ZooKeeper's TxnHeader.
type txnHeader struct {
	clientID int64
	cxid     int32
	zxid     int64
	time     int64
	typ      wire.Op
}

// txn is one logged transaction: its header, its record (one of the *Txn
// types below; nil for a closeSession written without one) and the tree
// digest logged after it, if any.
type txn struct {
	hdr    txnHeader
	rec    any
	digest *txnDigest
}

// txnDigest is TxnDigest: the tree digest after the txn.
type txnDigest struct {
	version int32
	tree    int64
}

// The txn records of zookeeper.jute's org.apache.zookeeper.txn module.
type (
	createTxn struct {
		path           string
		data           []byte
		acl            []wire.ACL
		ephemeral      bool
		parentCVersion int32
	}
	createTTLTxn struct {
		path           string
		data           []byte
		acl            []wire.ACL
		parentCVersion int32
		ttl            int64
	}
	createContainerTxn struct {
		path           string
		data           []byte
		acl            []wire.ACL
		parentCVersion int32
	}
	deleteTxn  struct{ path string }
	setDataTxn struct {
		path    string
		data    []byte
		version int32
	}
	setACLTxn struct {
		path    string
		acl     []wire.ACL
		version int32
	}
	checkTxn         struct{ path string }
	createSessionTxn struct{ timeout int32 }
	closeSessionTxn  struct{ paths []string }
	errorTxn         struct{ err int32 }
	multiTxn         struct{ ops []subTxn }
	subTxn           struct {
		typ  wire.Op
		data []byte
	}
)

// errUnsupportedTxn is the error for a txn type ZooKeeper 3.8 does not log.
var errUnsupportedTxn = errors.New("unsupported txn type")

// decodeTxn decodes a log entry as SerializeUtils.deserializeTxn does:
// header, record, then an optional TxnDigest.
func decodeTxn(b []byte) (*txn, error) {
	d := wire.NewDecoder(b, 0)
	t := &txn{}
	h := &t.hdr
	h.clientID, h.cxid, h.zxid, h.time, h.typ = d.Long(), d.Int(), d.Long(), d.Long(), wire.Op(d.Int())
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("txn header: %w", err)
	}
	rec, err := decodeRecord(d, h.typ)
	if err != nil {
		return nil, fmt.Errorf("%s txn at zxid %#x: %w", h.typ, h.zxid, err)
	}
	t.rec = rec
	if d.Remaining() >= 12 {
		t.digest = &txnDigest{version: d.Int(), tree: d.Long()}
	}
	return t, nil
}

// decodeRecord decodes the record of a top-level txn of type op.
func decodeRecord(d *wire.Decoder, op wire.Op) (any, error) {
	switch op {
	case wire.OpCreateSession:
		return done(d, &createSessionTxn{timeout: d.Int()})
	case wire.OpCloseSession:
		if d.Remaining() == 0 {
			return nil, nil // written before CloseSessionTxn existed
		}
		return done(d, &closeSessionTxn{paths: d.Strings()})
	case wire.OpCreate, wire.OpCreate2:
		return decodeCreate(d)
	case wire.OpReconfig:
		return decodeSub(d, wire.OpSetData)
	case wire.OpSetACL:
		r := &setACLTxn{path: d.String(), acl: wire.DecodeACLs(d)}
		r.version = d.Int()
		return done(d, r)
	case wire.OpMulti:
		return decodeMulti(d)
	case wire.OpCreateTTL, wire.OpCreateContainer, wire.OpDelete, wire.OpDeleteContainer, wire.OpSetData, wire.OpError:
		return decodeSub(d, op)
	}
	return nil, fmt.Errorf("%w %d", errUnsupportedTxn, int32(op))
}

// decodeCreate reads a CreateTxn; one that ends before parentCVersion is
// the old CreateTxnV0, whose -1 makes createNode compute it.
func decodeCreate(d *wire.Decoder) (any, error) {
	r := &createTxn{path: d.String(), data: d.Buffer(), acl: wire.DecodeACLs(d), ephemeral: d.Bool(), parentCVersion: -1}
	if d.Err() == nil && d.Remaining() >= 4 {
		r.parentCVersion = d.Int()
	}
	return done(d, r)
}

// decodeSub decodes the records that may appear in a multi as well as
// alone (DataTree.processTxn's multi switch).
func decodeSub(d *wire.Decoder, op wire.Op) (any, error) {
	switch op {
	case wire.OpCreate:
		return decodeCreate(d)
	case wire.OpCreateTTL:
		r := &createTTLTxn{path: d.String(), data: d.Buffer(), acl: wire.DecodeACLs(d)}
		r.parentCVersion, r.ttl = d.Int(), d.Long()
		return done(d, r)
	case wire.OpCreateContainer:
		r := &createContainerTxn{path: d.String(), data: d.Buffer(), acl: wire.DecodeACLs(d)}
		r.parentCVersion = d.Int()
		return done(d, r)
	case wire.OpDelete, wire.OpDeleteContainer:
		return done(d, &deleteTxn{path: d.String()})
	case wire.OpSetData:
		r := &setDataTxn{path: d.String(), data: d.Buffer()}
		r.version = d.Int()
		return done(d, r)
	case wire.OpError:
		return done(d, &errorTxn{err: d.Int()})
	case wire.OpCheck:
		r := &checkTxn{path: d.String()}
		d.Int()
		return done(d, r)
	}
	return nil, fmt.Errorf("%w %d in a multi", errUnsupportedTxn, int32(op))
}

// decodeMulti reads MultiTxn: a vector of (type, buffer); the buffers are
// decoded when the multi is applied, as ZooKeeper does.
func decodeMulti(d *wire.Decoder) (any, error) {
	n := d.Count(8)
	r := &multiTxn{ops: make([]subTxn, 0, d.Prealloc(n, 8))}
	for i := 0; i < n && d.Err() == nil; i++ {
		r.ops = append(r.ops, subTxn{typ: wire.Op(d.Int()), data: d.Buffer()})
	}
	return done(d, r)
}

func done[T any](d *wire.Decoder, r T) (any, error) {
	if err := d.Err(); err != nil {
		return nil, err
	}
	return r, nil
}
