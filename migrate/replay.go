package migrate

import (
	"fmt"

	"github.com/zkraft/zkraft/wire"
)

// replayer applies logged transactions to a tree loaded from a snapshot
// as FileTxnSnapLog.processTransaction and DataTree.processTxn do. A
// snapshot is fuzzy: ZooKeeper writes it while transactions go on, so
// some after the zxid in its name may already be in it. Replaying one of
// those fails with NONODE or NODEEXISTS, which ZooKeeper ignores; a create
// that finds its node already there still sets the parent's cversion and
// pzxid from the txn (setCversionPzxid), so that they end as they would
// have without the snapshot.
type replayer struct {
	tree     *zkTree
	sessions map[int64]int32
	// last is the highest zxid applied (DataTree.lastProcessedZxid).
	last int64
	// notes collects what a restore of ZooKeeper would only log.
	notes *[]string
}

// apply applies one top-level transaction.
func (r *replayer) apply(t *txn) error {
	h := &t.hdr
	switch h.typ {
	case wire.OpCreateSession:
		r.sessions[h.clientID] = t.rec.(*createSessionTxn).timeout
	case wire.OpCloseSession:
		delete(r.sessions, h.clientID)
	}
	if _, err := r.process(h, h.typ, t.rec); err != nil {
		return err
	}
	if h.zxid > r.last {
		r.last = h.zxid
	}
	return nil
}

// process is DataTree.processTxn for one record of type op (a top-level
// txn, or a multi's sub-txn with the multi's header); it returns the
// result code.
func (r *replayer) process(h *txnHeader, op wire.Op, rec any) (int32, error) {
	if err := checkPath(h, op, rec); err != nil {
		return 0, err
	}
	t := r.tree
	var rc int32
	switch v := rec.(type) {
	case *createTxn:
		owner := int64(0)
		if v.ephemeral {
			owner = h.clientID
		}
		rc = t.createNode(v.path, v.data, v.acl, owner, v.parentCVersion, h.zxid, h.time)
	case *createTTLTxn:
		rc = t.createNode(v.path, v.data, v.acl, extendedMask|v.ttl, v.parentCVersion, h.zxid, h.time)
	case *createContainerTxn:
		rc = t.createNode(v.path, v.data, v.acl, containerOwner, v.parentCVersion, h.zxid, h.time)
	case *deleteTxn:
		rc = t.deleteNode(v.path, h.zxid)
	case *setDataTxn:
		rc = t.setData(v.path, v.data, v.version, h.zxid, h.time)
	case *setACLTxn:
		rc = t.setACL(v.path, v.acl, v.version)
	case *closeSessionTxn:
		t.killSession(h.clientID, h.zxid, v.paths)
	case nil:
		if op == wire.OpCloseSession {
			t.killSession(h.clientID, h.zxid, nil)
		}
	case *errorTxn:
		rc = v.err
	case *multiTxn:
		return r.multi(h, v)
	}
	if c, ok := rec.(*createTxn); ok && op == wire.OpCreate && rc == codeNodeExists {
		parent, _, _ := splitZKPath(c.path)
		rc = t.setCversionPzxid(parent, c.parentCVersion, h.zxid)
	}
	return rc, nil
}

// multi applies a MultiTxn's sub-txns in order. When one of them is an
// error (the multi failed in ZooKeeper's prep), every sub-txn becomes an
// error and nothing changes. A sub-txn of a type a multi cannot hold, or
// one that does not decode, ends the multi where it is, with the sub-txns
// before it applied, as ZooKeeper's IOException does.
func (r *replayer) multi(h *txnHeader, m *multiTxn) (int32, error) {
	for _, s := range m.ops {
		if s.typ == wire.OpError {
			return 0, nil
		}
	}
	var rc int32
	for i, s := range m.ops {
		rec, err := decodeSub(wire.NewDecoder(s.data, 0), s.typ)
		if err != nil {
			*r.notes = append(*r.notes, fmt.Sprintf("multi at zxid %#x: sub-txn %d: %v; the rest of the multi is not applied, as in ZooKeeper", h.zxid, i, err))
			return rc, nil
		}
		sub, err := r.process(h, s.typ, rec)
		if err != nil {
			return 0, err
		}
		if sub != 0 && rc == 0 {
			rc = sub
		}
	}
	return rc, nil
}

// checkPath refuses a create or delete whose path has no '/': DataTree
// fails on it with an exception that stops ZooKeeper's restore too.
func checkPath(h *txnHeader, op wire.Op, rec any) error {
	var path string
	switch v := rec.(type) {
	case *createTxn:
		path = v.path
	case *createTTLTxn:
		path = v.path
	case *createContainerTxn:
		path = v.path
	case *deleteTxn:
		path = v.path
	default:
		return nil
	}
	if _, _, ok := splitZKPath(path); !ok {
		return fmt.Errorf("%v txn at zxid %#x: path %q has no '/', which ZooKeeper fails on", op, h.zxid, path)
	}
	return nil
}
