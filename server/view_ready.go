package server

import (
	"context"
	"errors"
)

// Why a server is not ready (see Ready).
var (
	ErrNotReadyClosed   = errors.New("the server is stopping")
	ErrNotReadyNoLeader = errors.New("no leader: an election is under way or the quorum is lost")
	ErrNotReadyRemoved  = errors.New("a reconfig removed this server from the ensemble")
	ErrNotReadyReadOnly = errors.New("read-only mode: no quorum, serving read-only clients only")
	ErrNotReadyBehind   = errors.New("not yet caught up with the leader")
)

// Ready reports whether the server can serve clients with up-to-date
// state now, for a readiness probe: nil when it knows a leader and has
// applied everything that leader had when this server first caught up
// with it in the current term (ZAB's synchronisation; the first call of a
// term asks the leader, later calls answer at once). Otherwise it returns
// one of the ErrNotReady* errors. ctx bounds the wait for the leader's
// answer.
func (s *Server) Ready(ctx context.Context) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	switch {
	case closed:
		return ErrNotReadyClosed
	case s.node.Removed():
		return ErrNotReadyRemoved
	case s.readOnlyMode():
		return ErrNotReadyReadOnly
	case !s.node.HasLeader():
		return ErrNotReadyNoLeader
	case !s.node.AwaitSynced(ctx):
		return ErrNotReadyBehind
	}
	return nil
}
