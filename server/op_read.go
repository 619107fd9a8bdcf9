package server

import (
	"context"
	"strings"
	"time"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/wire"
)

// readOps are served from local state, in order, without Raft.
func readOps() map[wire.Op]handler {
	return map[wire.Op]handler{
		wire.OpExists:               {kind: kindRead, read: readExists},
		wire.OpGetData:              {kind: kindRead, read: readGetData},
		wire.OpGetACL:               {kind: kindRead, read: readGetACL},
		wire.OpGetChildren:          {kind: kindRead, read: readGetChildren},
		wire.OpGetChildren2:         {kind: kindRead, read: readGetChildren2},
		wire.OpGetAllChildrenNumber: {kind: kindRead, read: readAllChildrenNumber},
		wire.OpGetEphemerals:        {kind: kindRead, read: readEphemerals},
		wire.OpSync:                 {kind: kindRead, read: readSync, prepare: prepareSync},
		wire.OpMultiRead:            {kind: kindRead, read: readMulti},
		wire.OpWhoAmI:               {kind: kindRead, read: readWhoAmI},
		wire.OpPing:                 {kind: kindRead, read: readPing},
	}
}

// readExists sets a data watch even when the node is missing, so the
// client hears about its creation. ZooKeeper 3.8.0 checks no ACL here.
func readExists(c *conn, req wire.Record, st *consensus.State) (wire.Record, error) {
	r := req.(*wire.PathWatchRequest)
	if strings.IndexByte(r.Path, 0) >= 0 {
		return nil, wire.CodeBadArguments
	}
	stat, err := st.Tree.Stat(r.Path)
	if r.Watch && (err == nil || wire.CodeOf(err) == wire.CodeNoNode) {
		c.srv.watches.add(c, r.Path, watchData)
	}
	if err != nil {
		return nil, err
	}
	return &wire.StatResponse{Stat: stat}, nil
}

func readGetData(c *conn, req wire.Record, st *consensus.State) (wire.Record, error) {
	r := req.(*wire.PathWatchRequest)
	if err := st.Tree.CheckACL(r.Path, wire.PermRead, c.authIDs()); err != nil {
		return nil, err
	}
	data, stat, err := st.Tree.GetData(r.Path)
	if err != nil {
		return nil, err
	}
	if r.Watch {
		c.srv.watches.add(c, r.Path, watchData)
	}
	return &wire.GetDataResponse{Data: data, Stat: stat}, nil
}

// readGetACL needs READ or ADMIN; without ADMIN, digest hashes are masked.
func readGetACL(c *conn, req wire.Record, st *consensus.State) (wire.Record, error) {
	r := req.(*wire.PathRequest)
	auth := c.authIDs()
	admin := st.Tree.CheckACL(r.Path, wire.PermAdmin, auth) == nil
	if !admin {
		if err := st.Tree.CheckACL(r.Path, wire.PermRead, auth); err != nil {
			return nil, err
		}
	}
	acl, stat, err := st.Tree.GetACL(r.Path)
	if err != nil {
		return nil, err
	}
	if !admin {
		acl = maskDigests(acl)
	}
	return &wire.GetACLResponse{ACL: acl, Stat: stat}, nil
}

func maskDigests(acl []wire.ACL) []wire.ACL {
	out := make([]wire.ACL, len(acl))
	for i, a := range acl {
		if a.ID.Scheme == "digest" {
			if user, _, ok := strings.Cut(a.ID.ID, ":"); ok {
				a.ID.ID = user + ":x"
			}
		}
		out[i] = a
	}
	return out
}

func children(c *conn, r *wire.PathWatchRequest, st *consensus.State) ([]string, wire.Stat, error) {
	if err := st.Tree.CheckACL(r.Path, wire.PermRead, c.authIDs()); err != nil {
		return nil, wire.Stat{}, err
	}
	kids, stat, err := st.Tree.GetChildren(r.Path)
	if err != nil {
		return nil, stat, err
	}
	if r.Watch {
		c.srv.watches.add(c, r.Path, watchChild)
	}
	return kids, stat, nil
}

func readGetChildren(c *conn, req wire.Record, st *consensus.State) (wire.Record, error) {
	kids, _, err := children(c, req.(*wire.PathWatchRequest), st)
	if err != nil {
		return nil, err
	}
	return &wire.GetChildrenResponse{Children: kids}, nil
}

func readGetChildren2(c *conn, req wire.Record, st *consensus.State) (wire.Record, error) {
	kids, stat, err := children(c, req.(*wire.PathWatchRequest), st)
	if err != nil {
		return nil, err
	}
	return &wire.GetChildren2Response{Children: kids, Stat: stat}, nil
}

func readAllChildrenNumber(c *conn, req wire.Record, st *consensus.State) (wire.Record, error) {
	r := req.(*wire.PathRequest)
	if err := st.Tree.CheckACL(r.Path, wire.PermRead, c.authIDs()); err != nil {
		return nil, err
	}
	n, err := st.Tree.AllChildrenNumber(r.Path)
	if err != nil {
		return nil, err
	}
	return &wire.GetAllChildrenNumberResponse{TotalNumber: n}, nil
}

// readEphemerals lists the calling session's ephemerals whose path starts
// with the prefix (a plain string prefix, as ZooKeeper's).
func readEphemerals(c *conn, req wire.Record, st *consensus.State) (wire.Record, error) {
	prefix := req.(*wire.GetEphemeralsRequest).PrefixPath
	all := st.Tree.Ephemerals(c.sessionID())
	out := make([]string, 0, len(all))
	for _, p := range all {
		if prefix == "" || prefix == "/" || strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	return &wire.GetEphemeralsResponse{Ephemerals: out}, nil
}

// syncTimeout bounds how long a sync waits for the leader.
const syncTimeout = 30 * time.Second

// prepareSync brings this server up to everything the leader had appended
// when the sync reached it, so the reads after it are current.
func prepareSync(c *conn, _ wire.Record) error {
	if c.readOnly.Load() {
		return wire.CodeNotReadOnly // sync needs the leader
	}
	ctx, cancel := context.WithTimeout(c.srv.life, syncTimeout)
	defer cancel()
	if err := c.srv.node.Sync(ctx); err != nil {
		c.srv.log.Warn("sync failed", "err", err)
		return errLost
	}
	return nil
}

// readSync replies once the connection's earlier requests are done and
// prepareSync has caught this server up with the leader.
func readSync(_ *conn, req wire.Record, _ *consensus.State) (wire.Record, error) {
	r := req.(*wire.PathRequest)
	return &wire.SyncResponse{Path: r.Path, Null: r.PathNull()}, nil
}

func readPing(*conn, wire.Record, *consensus.State) (wire.Record, error) { return nil, nil }

// readMulti evaluates each getData/getChildren independently; it never sets watches.
func readMulti(c *conn, req wire.Record, st *consensus.State) (wire.Record, error) {
	m := req.(*wire.MultiRequest)
	if isRead, mixed := m.Kind(); mixed || (!isRead && len(m.Ops) > 0) {
		return nil, wire.CodeMarshallingError
	}
	// ZooKeeper fails at an op whose path is null, answering with the
	// results of the ops before it (see nullFieldErr).
	end, nullPath := m.NullPathOp()
	if !nullPath {
		end = len(m.Ops)
	}
	auth := c.authIDs()
	res := make([]wire.MultiResult, 0, end)
	for _, op := range m.Ops[:end] {
		res = append(res, readOne(op, auth, st))
	}
	if nullPath {
		return nil, &replyError{code: wire.CodeMarshallingError, body: &wire.MultiResponse{Results: res}}
	}
	return &wire.MultiResponse{Results: res}, nil
}

func readOne(op wire.MultiOp, auth []wire.Id, st *consensus.State) wire.MultiResult {
	path := op.Record.(*wire.PathWatchRequest).Path
	if err := st.Tree.CheckACL(path, wire.PermRead, auth); err != nil {
		return wire.MultiResult{Type: wire.OpError, Err: wire.CodeOf(err)}
	}
	if op.Type == wire.OpGetData {
		data, stat, err := st.Tree.GetData(path)
		if err != nil {
			return wire.MultiResult{Type: wire.OpError, Err: wire.CodeOf(err)}
		}
		return wire.MultiResult{Type: wire.OpGetData, Data: data, Stat: stat}
	}
	kids, _, err := st.Tree.GetChildren(path)
	if err != nil {
		return wire.MultiResult{Type: wire.OpError, Err: wire.CodeOf(err)}
	}
	return wire.MultiResult{Type: wire.OpGetChildren, Children: kids}
}

// readWhoAmI lists the connection's identities: ip as the address, digest
// as the user name, super with an empty user.
func readWhoAmI(c *conn, _ wire.Record, _ *consensus.State) (wire.Record, error) {
	ids := c.authIDs()
	out := make([]wire.ClientInfo, 0, len(ids))
	for _, id := range ids {
		user := id.ID
		switch id.Scheme {
		case "digest":
			user, _, _ = strings.Cut(id.ID, ":")
		case "super":
			user = ""
		}
		out = append(out, wire.ClientInfo{AuthScheme: id.Scheme, User: user})
	}
	return &wire.WhoAmIResponse{ClientInfo: out}, nil
}
