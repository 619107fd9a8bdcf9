package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// This file is the server's test and debugging surface: forcing a session
// to expire and looking at the replicated state for assertions and failure
// messages.

// ExpireSession ends a session at once, as its timeout would: it proposes
// closeSession, which deletes its ephemerals on every replica and fires
// their watches; the client learns of it when it next connects.
func (s *Server) ExpireSession(ctx context.Context, id int64) error {
	cmd := &consensus.Command{Kind: consensus.KindCloseSession, Session: id, Time: s.nowMillis()}
	a, err := s.node.Propose(ctx, cmd)
	if err != nil {
		return err
	}
	return a.Result.Err
}

// Sessions lists the replicated sessions.
func (s *Server) Sessions() []session.Info { return s.node.Sessions() }

// Ephemerals maps each session owning ephemeral nodes to their paths.
func (s *Server) Ephemerals() map[int64][]string {
	var out map[int64][]string
	s.node.Read(func(st *consensus.State) { out = st.Tree.EphemeralSessions() })
	return out
}

// WatchesByPath maps each path with data watches on this server to the
// sessions watching it (what wchp prints).
func (s *Server) WatchesByPath() map[string][]int64 { return s.watches.byPath() }

// DumpTree returns one line per znode, in path order, with its data length,
// version, child count and ephemeral owner: for failure messages.
func (s *Server) DumpTree() string {
	var b strings.Builder
	s.node.Read(func(st *consensus.State) {
		st.Tree.Walk(func(path string, stat wire.Stat) {
			fmt.Fprintf(&b, "%s len=%d version=%d children=%d", path, stat.DataLength, stat.Version, stat.NumChildren)
			if stat.EphemeralOwner != 0 {
				fmt.Fprintf(&b, " owner=0x%x", stat.EphemeralOwner)
			}
			b.WriteString("\n")
		})
	})
	return b.String()
}
