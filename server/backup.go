package server

import (
	"context"
	"errors"
	"io"

	"github.com/zkraft/zkraft/consensus"
)

// ErrNotStarted is returned by the backup and admin calls of a server that
// has not started (or failed to).
var ErrNotStarted = errors.New("server: not started")

// Backup is a consistent, point-in-time snapshot of the replicated state,
// taken without stopping writes. LastZxid is the zxid of the last
// transaction it contains; Size is the exact number of bytes WriteTo will
// write. It is held in memory until Close; it is not safe for concurrent
// use.
type Backup struct {
	LastZxid int64
	Size     int64
	b        *consensus.Backup
}

// OpenBackup takes a backup of this server's replica (any member of an
// ensemble can: every replica holds the whole state), the way Raft takes
// its own snapshots while writes go on (see consensus.Node.OpenBackup).
func (s *Server) OpenBackup(ctx context.Context) (*Backup, error) {
	if s.node == nil {
		return nil, ErrNotStarted
	}
	b, err := s.node.OpenBackup(ctx)
	if err != nil {
		return nil, err
	}
	return &Backup{LastZxid: b.LastZxid, Size: b.Size(), b: b}, nil
}

// WriteTo writes the backup: a self-checking stream (format marker,
// version, length and a CRC-64 of the whole) that RestoreBackup reads.
func (b *Backup) WriteTo(w io.Writer) (int64, error) { return b.b.WriteTo(w) }

// Close releases the backup's memory.
func (b *Backup) Close() error { return b.b.Close() }

// RestoreBackup replaces the whole replicated state with a backup written by
// WriteTo, through Raft, so that every server of the ensemble ends with it.
// It returns the last zxid after the restore. It must run on the leader (a
// follower's error names it) with its quorum; the backup is checked in full
// before anything changes. Every session ends: the restore deletes every
// ephemeral and every server closes its clients' connections, which learn
// that their session expired when they reconnect (see docs/backup.md).
func (s *Server) RestoreBackup(ctx context.Context, r io.Reader) (lastZxid int64, err error) {
	if s.node == nil {
		return 0, ErrNotStarted
	}
	return s.node.RestoreBackup(ctx, r)
}

// onRestore runs under the state lock when a snapshot replaced the state
// (a user restore, or a follower catching up from the leader's snapshot):
// the connections of sessions the new state no longer holds are closed,
// which drops their watches, and the client learns that its session
// expired when it reconnects, as after any expiry. It may run before
// Start returns (Raft restoring the last snapshot), when there are none.
func (s *Server) onRestore(st *consensus.State) {
	var gone []*conn
	s.mu.Lock()
	for id, c := range s.bySession {
		if _, ok := st.Sessions.Get(id); !ok && !c.readOnly.Load() {
			gone = append(gone, c)
		}
	}
	s.mu.Unlock()
	t := s.currentTracker()
	for _, c := range gone {
		if t != nil {
			t.Remove(c.sessionID())
		}
		c.close()
	}
}
