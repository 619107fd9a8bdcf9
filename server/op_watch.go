package server

import (
	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/wire"
)

// watchOps manage the connection's watches; they are served in order like reads.
func watchOps() map[wire.Op]handler {
	return map[wire.Op]handler{
		wire.OpSetWatches:    {kind: kindRead, read: readSetWatches},
		wire.OpSetWatches2:   {kind: kindRead, read: readSetWatches2},
		wire.OpAddWatch:      {kind: kindRead, read: readAddWatch},
		wire.OpCheckWatches:  {kind: kindRead, read: readCheckWatches},
		wire.OpRemoveWatches: {kind: kindRead, read: readRemoveWatches},
	}
}

// anyNil reports whether a watch list was sent as a null vector, which
// ZooKeeper fails to read (MARSHALLINGERROR). A null path in a data, exist
// or child list fails there too (NullPath), when ZooKeeper looks it up.
func anyNil(lists ...[]string) bool {
	for _, l := range lists {
		if l == nil {
			return true
		}
	}
	return false
}

func readSetWatches(c *conn, req wire.Record, st *consensus.State) (wire.Record, error) {
	r := req.(*wire.SetWatches)
	if anyNil(r.DataWatches, r.ExistWatches, r.ChildWatches) || r.NullPath() {
		return nil, wire.CodeMarshallingError
	}
	c.srv.resetWatches(c, st, r.RelativeZxid, r.DataWatches, r.ExistWatches, r.ChildWatches)
	return nil, nil
}

func readSetWatches2(c *conn, req wire.Record, st *consensus.State) (wire.Record, error) {
	r := req.(*wire.SetWatches2)
	if anyNil(r.DataWatches, r.ExistWatches, r.ChildWatches, r.PersistentWatches, r.PersistentRecursiveWatches) || r.NullPath() {
		return nil, wire.CodeMarshallingError
	}
	c.srv.resetWatches(c, st, r.RelativeZxid, r.DataWatches, r.ExistWatches, r.ChildWatches)
	for _, p := range r.PersistentWatches {
		c.srv.watches.addPersistent(c, p, false)
	}
	for _, p := range r.PersistentRecursiveWatches {
		c.srv.watches.addPersistent(c, p, true)
	}
	return nil, nil
}

// resetWatches re-registers a reconnecting client's watches. A watch whose
// node changed after relativeZxid (the last zxid the client saw) fires at
// once instead; those events carry zxid -1 and precede the reply.
func (s *Server) resetWatches(c *conn, st *consensus.State, rel int64, data, exist, child []string) {
	fire := func(typ wire.EventType, path string) {
		c.events.push(event{typ: typ, path: path})
	}
	for _, p := range data {
		switch stat, err := st.Tree.Stat(p); {
		case err != nil:
			fire(wire.EventNodeDeleted, p)
		case stat.Mzxid > rel:
			fire(wire.EventNodeDataChanged, p)
		default:
			s.watches.add(c, p, watchData)
		}
	}
	for _, p := range exist {
		if st.Tree.Exists(p) {
			fire(wire.EventNodeCreated, p)
		} else {
			s.watches.add(c, p, watchData)
		}
	}
	for _, p := range child {
		switch stat, err := st.Tree.Stat(p); {
		case err != nil:
			fire(wire.EventNodeDeleted, p)
		case stat.Pzxid > rel:
			fire(wire.EventNodeChildrenChanged, p)
		default:
			s.watches.add(c, p, watchChild)
		}
	}
}

// readAddWatch registers a persistent watch; the node need not exist.
func readAddWatch(c *conn, req wire.Record, _ *consensus.State) (wire.Record, error) {
	r := req.(*wire.AddWatchRequest)
	switch r.Mode {
	case wire.AddWatchPersistent:
		c.srv.watches.addPersistent(c, r.Path, false)
	case wire.AddWatchPersistentRecursive:
		c.srv.watches.addPersistent(c, r.Path, true)
	default:
		return nil, wire.CodeMarshallingError // ZooKeeper cannot map the mode
	}
	return &wire.ErrorResponse{Err: wire.CodeOK}, nil
}

// validWatcherType reports whether typ names a WatcherType.
func validWatcherType(typ int32) bool {
	return typ >= wire.WatcherChildren && typ <= wire.WatcherPersistentRecursive
}

func readCheckWatches(c *conn, req wire.Record, _ *consensus.State) (wire.Record, error) {
	return nil, matchWatches(c, req.(*wire.WatchesRequest), true)
}

func readRemoveWatches(c *conn, req wire.Record, _ *consensus.State) (wire.Record, error) {
	return nil, matchWatches(c, req.(*wire.WatchesRequest), false)
}

// matchWatches finds (and unless dryRun removes) this connection's watches
// of the requested type: MARSHALLINGERROR for an unknown type, NOWATCHER
// when there is none.
func matchWatches(c *conn, r *wire.WatchesRequest, dryRun bool) error {
	if !validWatcherType(r.Type) {
		return wire.CodeMarshallingError
	}
	if !c.srv.watches.remove(c, r.Path, r.Type, dryRun) {
		return wire.CodeNoWatcher
	}
	return nil
}
