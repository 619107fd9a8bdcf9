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
	p.later = func() *reply {
		r := c.srv.reconfig(c, xid, req.(*wire.ReconfigRequest))
		c.auditReconfig(r)
		return r
	}
	return p
}

// reconfig changes the ensemble's membership as ZooKeeper 3.5+ does:
// incremental (joining/leaving) or a full new member list, guarded by
// reconfigEnabled, WRITE on /zookeeper/config and curConfigId.
func (s *Server) reconfig(c *conn, xid int32, req *wire.ReconfigRequest) *reply {
	ctx, cancel := context.WithTimeout(s.life, reconfigTimeout)
	defer cancel()
	now := s.nowMillis()
	members, zxid, err := s.reconfigure(ctx, c, req, now)
	var code wire.Code
	removed := errors.Is(err, consensus.ErrRemoved)
	switch {
	case removed:
		// It will never apply the config entry, so it answers with what
		// the entry writes; it drops its clients at its next tick.
		s.log.Info("reconfig applied: this server left the ensemble", "zxid", sessionHex(zxid), "members", len(members))
	case errors.Is(err, consensus.ErrShutdown):
		return lostReply()
	case errors.As(err, &code):
		// A refused reconfig still takes a zxid, as ZooKeeper's error txn.
		return s.logFailure(xid, code)
	case errors.Is(err, consensus.ErrReconfigInProgress):
		s.log.Info("reconfig refused: another one is in progress")
		return s.logFailure(xid, wire.CodeReconfigInProgress)
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

// reconfigure checks req, computes the membership it asks for and makes
// it. An incremental change is computed from this server's view of the
// membership; when another change replaced that view meanwhile (two
// servers joining at once through different members), this server catches
// up and computes it again, so neither change undoes the other. Errors
// that are wire codes are ZooKeeper's answers.
func (s *Server) reconfigure(ctx context.Context, c *conn, req *wire.ReconfigRequest, now int64) ([]consensus.Peer, int64, error) {
	for {
		members, base, err := s.checkReconfig(c, req)
		if err != nil {
			return nil, 0, err
		}
		zxid, err := s.node.Reconfigure(ctx, members, base, now)
		if !errors.Is(err, consensus.ErrConfigChanged) {
			return members, zxid, err
		}
		if err := s.node.Sync(ctx); err != nil {
			return nil, 0, err
		}
	}
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

// checkReconfig applies ZooKeeper 3.8's checks (PrepRequestProcessor) in
// its order and returns the new membership with the configuration version
// the leader must still have for it to apply (-1: any): reconfigEnabled,
// an ensemble, curConfigId (BADVERSION), the new membership
// (BADARGUMENTS, or MARSHALLINGERROR where ZooKeeper fails to parse a
// number), enough voters, and only then WRITE on /zookeeper/config
// (NOAUTH). So a client without that permission learns of a malformed
// request or a stale version first.
//
// ZooKeeper also checks, before the ACL, that a quorum of the new
// membership is connected and synced (NEWCONFIGNOQUORUM); zkraft learns
// that only by making the change, which it does after the ACL check.
func (s *Server) checkReconfig(c *conn, req *wire.ReconfigRequest) ([]consensus.Peer, int64, error) {
	if !s.cfg.ReconfigEnabled {
		return nil, 0, wire.CodeReconfigDisabled
	}
	if !s.cfg.ensemble() {
		return nil, 0, wire.CodeUnimplemented
	}
	current, version := s.node.Membership()
	if req.CurConfigID != -1 && req.CurConfigID != version {
		return nil, 0, wire.CodeBadVersion
	}
	members, err := newMembership(current, req)
	if err == nil {
		err = s.checkVoters(members)
	}
	if err != nil {
		s.log.Info("reconfig refused", "err", err)
		return nil, 0, err
	}
	var aclErr error
	s.node.Read(func(st *consensus.State) { aclErr = st.Tree.CheckACL("/zookeeper/config", wire.PermWrite, c.authIDs()) })
	if aclErr != nil {
		return nil, 0, aclErr
	}
	base := version // an incremental change is relative to it
	if req.NonIncremental() && req.CurConfigID == -1 {
		base = -1
	}
	return members, base, nil
}

// checkVoters refuses a membership with too few voters: two with
// standaloneEnabled (ZooKeeper's default), else one.
func (s *Server) checkVoters(members []consensus.Peer) error {
	voters := 0
	for _, p := range members {
		if !p.Observer {
			voters++
		}
	}
	if voters < 1 || (s.cfg.StandaloneEnabled && voters < 2) {
		return fmt.Errorf("%w: the new membership has %d voting members", wire.CodeBadArguments, voters)
	}
	return nil
}

// newMembership computes the membership a reconfig asks for. Errors wrap
// the code ZooKeeper answers with.
func newMembership(current []consensus.Peer, req *wire.ReconfigRequest) ([]consensus.Peer, error) {
	byID := map[int64]consensus.Peer{}
	var err error
	if req.NonIncremental() {
		err = fullMembership(byID, req.NewMembers)
	} else {
		err = incrementalMembership(byID, current, req)
	}
	if err != nil {
		return nil, err
	}
	out := make([]consensus.Peer, 0, len(byID))
	for _, p := range byID {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// incrementalMembership applies leaving ids, then joining lines, to the
// current membership; both lists are comma-separated, as in ZooKeeper.
// Joining lines need all three ports (host:peer:election;client).
func incrementalMembership(byID map[int64]consensus.Peer, current []consensus.Peer, req *wire.ReconfigRequest) error {
	for _, p := range current {
		byID[p.ID] = p
	}
	for _, id := range splitList(req.LeavingServers) {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: leaving server %q is not a server id", wire.CodeMarshallingError, id)
		}
		delete(byID, n)
	}
	for _, line := range splitList(req.JoiningServers) {
		key, value, ok := strings.Cut(line, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || key == "" || value == "" || strings.Contains(value, "=") {
			return fmt.Errorf("%w: joining server %q is not server.N=...", wire.CodeBadArguments, line)
		}
		id, err := strconv.ParseInt(key[strings.LastIndexByte(key, '.')+1:], 10, 64)
		if err != nil {
			return fmt.Errorf("%w: joining server %q has no numeric id", wire.CodeMarshallingError, line)
		}
		p, err := parseServerLine(id, value)
		if err != nil {
			return fmt.Errorf("%w: %v", wire.CodeBadArguments, err)
		}
		if p.Client == "" {
			return fmt.Errorf("%w: joining server %q needs a client port (;port)", wire.CodeBadArguments, line)
		}
		byID[id] = p
	}
	return nil
}

// fullMembership reads a non-incremental member list: server.N=... lines
// (and version=...), separated by commas or newlines, as ZooKeeper reads
// them as properties.
func fullMembership(byID map[int64]consensus.Peer, members string) error {
	voters, observers := 0, 0
	for _, line := range strings.FieldsFunc(members, func(r rune) bool { return r == ',' || r == '\n' }) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		key, value := cutProperty(line)
		if key == "version" {
			continue
		}
		idText, isServer := strings.CutPrefix(key, "server.")
		if !isServer {
			// group.N and weight.N (hierarchical quorums) are not offered.
			return fmt.Errorf("%w: unrecognised parameter %q", wire.CodeBadArguments, key)
		}
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: %q has no numeric id", wire.CodeMarshallingError, key)
		}
		p, err := parseServerLine(id, value)
		if err != nil {
			return fmt.Errorf("%w: %v", wire.CodeBadArguments, err)
		}
		byID[id] = p
	}
	for _, p := range byID {
		if p.Observer {
			observers++
		} else {
			voters++
		}
	}
	if observers > 0 && voters < 2 {
		// ZooKeeper throws IllegalArgumentException here, which its prep
		// step answers as an unexpected failure.
		return fmt.Errorf("%w: observers without a quorum of participants", wire.CodeMarshallingError)
	}
	return nil
}

// cutProperty splits a java.util.Properties line at its first '=', ':' or
// blank.
func cutProperty(line string) (key, value string) {
	i := strings.IndexAny(line, "=: \t")
	if i < 0 {
		return line, ""
	}
	key, value = line[:i], strings.TrimLeft(line[i:], " \t")
	if value != "" && (value[0] == '=' || value[0] == ':') {
		value = strings.TrimLeft(value[1:], " \t")
	}
	return key, value
}

// splitList splits a comma-separated reconfig list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
