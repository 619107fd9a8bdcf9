package server

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/wire"
)

// reconfigTimeout bounds a membership change, new members' catch-up included.
const reconfigTimeout = 30 * time.Second

// handleReconfig runs a reconfig in request order: it is answered by the
// writer once the membership change and its config entry are done.
func handleReconfig(c *conn, xid int32, req wire.Record) *pending {
	p := &pending{xid: xid, op: wire.OpReconfig, start: time.Now(), req: req}
	p.later = func() *reply { return c.srv.reconfig(c, xid, req.(*wire.ReconfigRequest)) }
	return p
}

// reconfig changes the ensemble's membership as ZooKeeper 3.5+ does:
// incremental (joining/leaving) or a full new member list, guarded by
// reconfigEnabled, WRITE on /zookeeper/config and curConfigId.
func (s *Server) reconfig(c *conn, xid int32, req *wire.ReconfigRequest) *reply {
	members, err := s.checkReconfig(c, req)
	if err != nil {
		// A refused reconfig still takes a zxid, as ZooKeeper's error txn.
		return s.logFailure(xid, wire.CodeOf(err))
	}
	ctx, cancel := context.WithTimeout(s.life, reconfigTimeout)
	defer cancel()
	now := s.nowMillis()
	zxid, err := s.node.Reconfigure(ctx, members, now)
	removed := errors.Is(err, consensus.ErrRemoved)
	switch {
	case removed:
		// It will never apply the config entry, so it answers with what
		// the entry writes; it drops its clients at its next tick.
		s.log.Info("reconfig applied: this server left the ensemble", "zxid", sessionHex(zxid), "members", len(members))
	case errors.Is(err, consensus.ErrShutdown):
		return lostReply()
	case err != nil:
		s.log.Warn("reconfig failed", "err", err)
		return s.logFailure(xid, wire.CodeNewConfigNoQuorum)
	}
	var data []byte
	var stat wire.Stat
	s.node.Read(func(st *consensus.State) { data, stat, _ = st.Tree.GetData("/zookeeper/config") })
	if removed {
		data = consensus.FormatMembership(members, zxid)
		stat.Mzxid, stat.Mtime, stat.DataLength = zxid, now, int32(len(data))
	} else {
		s.log.Info("reconfig applied", "zxid", sessionHex(zxid), "members", len(members))
	}
	return &reply{hdr: wire.ReplyHeader{Xid: xid, Zxid: zxid}, body: &wire.GetDataResponse{Data: data, Stat: stat}}
}

// logFailure logs a refused write as an error entry and answers with code.
func (s *Server) logFailure(xid int32, code wire.Code) *reply {
	a, err := s.node.Propose(s.life, &consensus.Command{Kind: consensus.KindError, Code: code})
	zxid := s.node.LastZxid()
	if err == nil {
		zxid = a.Zxid
	}
	return &reply{hdr: wire.ReplyHeader{Xid: xid, Zxid: zxid, Err: code}}
}

// checkReconfig applies ZooKeeper's checks in its order and returns the
// new membership.
func (s *Server) checkReconfig(c *conn, req *wire.ReconfigRequest) ([]consensus.Peer, error) {
	if !s.cfg.ReconfigEnabled {
		return nil, wire.CodeReconfigDisabled
	}
	if !s.cfg.ensemble() {
		return nil, wire.CodeUnimplemented
	}
	var aclErr error
	s.node.Read(func(st *consensus.State) { aclErr = st.Tree.CheckACL("/zookeeper/config", wire.PermWrite, c.authIDs()) })
	if aclErr != nil {
		return nil, aclErr
	}
	members, err := newMembership(s.node.Peers(), req)
	if err != nil {
		s.log.Info("reconfig refused", "err", err)
		return nil, wire.CodeBadArguments
	}
	if req.CurConfigID != -1 && req.CurConfigID != s.node.ConfigVersion() {
		return nil, wire.CodeBadVersion
	}
	return members, nil
}

// newMembership computes the membership a reconfig asks for.
func newMembership(current []consensus.Peer, req *wire.ReconfigRequest) ([]consensus.Peer, error) {
	byID := map[int64]consensus.Peer{}
	if strings.TrimSpace(req.NewMembers) != "" {
		if req.JoiningServers != "" || req.LeavingServers != "" {
			return nil, fmt.Errorf("newMembers cannot be combined with joining or leaving servers")
		}
	} else {
		for _, p := range current {
			byID[p.ID] = p
		}
		for _, id := range splitList(req.LeavingServers) {
			n, err := strconv.ParseInt(id, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("leaving server %q is not a server id", id)
			}
			delete(byID, n)
		}
	}
	joining := req.JoiningServers
	if strings.TrimSpace(req.NewMembers) != "" {
		joining = req.NewMembers
	}
	for _, line := range splitList(joining) {
		p, err := parseMemberLine(line)
		if err != nil {
			return nil, err
		}
		byID[p.ID] = p
	}
	out := make([]consensus.Peer, 0, len(byID))
	voters := 0
	for _, p := range byID {
		out = append(out, p)
		if !p.Observer {
			voters++
		}
	}
	if voters == 0 {
		return nil, fmt.Errorf("the new membership has no voting member")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// parseMemberLine reads "server.N=host:peerPort:electionPort[:role][;client]".
func parseMemberLine(line string) (consensus.Peer, error) {
	key, value, ok := strings.Cut(strings.TrimSpace(line), "=")
	idText, isServer := strings.CutPrefix(key, "server.")
	id, err := strconv.ParseInt(idText, 10, 64)
	if !ok || !isServer || err != nil {
		return consensus.Peer{}, fmt.Errorf("%q is not a server.N=... line", line)
	}
	return parseServerLine(id, value)
}

// splitList splits ZooKeeper's comma- or newline-separated reconfig lists.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
