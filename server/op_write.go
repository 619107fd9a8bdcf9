package server

import (
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// writeOps are the operations that become Raft transactions.
func writeOps() map[wire.Op]handler {
	return map[wire.Op]handler{
		wire.OpCreate:          {kind: kindWrite, prep: prepTxn, respond: respondCreate},
		wire.OpCreate2:         {kind: kindWrite, prep: prepTxn, respond: respondCreate2},
		wire.OpCreateContainer: {kind: kindWrite, prep: prepTxn, respond: respondCreate2},
		wire.OpCreateTTL:       {kind: kindWrite, prep: prepTxn, respond: respondCreate2},
		wire.OpDelete:          {kind: kindWrite, prep: prepTxn, respond: respondNone},
		wire.OpSetData:         {kind: kindWrite, prep: prepTxn, respond: respondStat},
		wire.OpSetACL:          {kind: kindWrite, prep: prepTxn, respond: respondStat},
		wire.OpMulti:           {kind: kindWrite, prep: prepMulti, respond: respondMulti},
		wire.OpDeleteContainer: {kind: kindWrite, prep: prepClientDeleteContainer},
	}
}

// prepTxn stamps a write with the proposal time, the session and the
// connection's identities; the data tree validates it when it is applied.
func prepTxn(c *conn, op wire.Op, req wire.Record, txn *datatree.Txn) error {
	session := c.sessionID()
	if c.local.Load() {
		var err error
		if session, err = c.srv.prepLocalWrite(c, req); err != nil {
			return err
		}
	}
	*txn = datatree.Txn{
		Time:    c.srv.nowMillis(),
		Session: session,
		Auth:    c.authIDs(),
		Op:      op,
		Body:    req,
	}
	return nil
}

// prepMulti rejects a multi that holds read operations, as ZooKeeper does.
func prepMulti(c *conn, op wire.Op, req wire.Record, txn *datatree.Txn) error {
	if isRead, mixed := req.(*wire.MultiRequest).Kind(); isRead || mixed {
		return wire.CodeMarshallingError
	}
	return prepTxn(c, op, req, txn)
}

// prepClientDeleteContainer refuses deleteContainer from clients: only the
// reaper deletes containers. ZooKeeper 3.8.0 answers the raw-path form it
// receives from a client with BADARGUMENTS too.
func prepClientDeleteContainer(*conn, wire.Op, wire.Record, *datatree.Txn) error {
	return wire.CodeBadArguments
}

func respondCreate(_ wire.Record, res *datatree.Result) wire.Record {
	return &wire.CreateResponse{Path: res.Path}
}

func respondCreate2(_ wire.Record, res *datatree.Result) wire.Record {
	return &wire.Create2Response{Path: res.Path, Stat: res.Stat}
}

func respondStat(_ wire.Record, res *datatree.Result) wire.Record {
	return &wire.StatResponse{Stat: res.Stat}
}

func respondNone(wire.Record, *datatree.Result) wire.Record { return nil }

func respondMulti(_ wire.Record, res *datatree.Result) wire.Record {
	return &wire.MultiResponse{Results: res.Multi}
}
