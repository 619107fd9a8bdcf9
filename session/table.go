package session

import (
	"errors"
	"fmt"
	"sort"

	"github.com/zkraft/zkraft/wire"
)

// Info describes one session of the replicated table.
type Info struct {
	// ID is the session id.
	ID int64
	// Timeout is the negotiated session timeout in milliseconds.
	Timeout int32
}

// Table is the replicated session table: every replica applies createSession
// and closeSession entries to it in Raft log order, so all replicas hold the
// same sessions.
//
// Table has no internal locking; the caller must hold the lock that guards
// the replicated state machine while using it.
type Table struct {
	sessions map[int64]int32
}

// NewTable returns an empty table.
func NewTable() *Table {
	return &Table{sessions: make(map[int64]int32)}
}

// Add records session id with its negotiated timeout (ms), replacing the
// timeout if the session already exists.
func (t *Table) Add(id int64, timeout int32) {
	t.sessions[id] = timeout
}

// Remove deletes session id and reports whether it existed.
func (t *Table) Remove(id int64) bool {
	_, ok := t.sessions[id]
	delete(t.sessions, id)
	return ok
}

// Get returns session id, if present.
func (t *Table) Get(id int64) (Info, bool) {
	timeout, ok := t.sessions[id]
	return Info{ID: id, Timeout: timeout}, ok
}

// Len returns the number of sessions.
func (t *Table) Len() int { return len(t.sessions) }

// List returns all sessions sorted by id.
func (t *Table) List() []Info {
	out := make([]Info, 0, len(t.sessions))
	for id, timeout := range t.sessions {
		out = append(out, Info{ID: id, Timeout: timeout})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Snapshot encodes the table as ZooKeeper's snapshot session section: an int
// count, then (long id, int timeout) per session, here in id order.
func (t *Table) Snapshot(e *wire.Encoder) {
	list := t.List()
	e.Int(int32(len(list)))
	for _, s := range list {
		e.Long(s.ID)
		e.Int(s.Timeout)
	}
}

// ErrDuplicateSession is returned by RestoreTable when a snapshot lists a
// session id twice.
var ErrDuplicateSession = errors.New("session: duplicate session id in snapshot")

// RestoreTable decodes a table written by Snapshot.
func RestoreTable(d *wire.Decoder) (*Table, error) {
	n := d.Count(12)
	if n < 0 {
		d.Fail(wire.ErrBadLength)
	}
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("session: restore table: %w", err)
	}
	t := &Table{sessions: make(map[int64]int32, d.Prealloc(n, 12))}
	for i := 0; i < n; i++ {
		id, timeout := d.Long(), d.Int()
		if d.Err() != nil {
			break
		}
		if _, dup := t.sessions[id]; dup {
			return nil, fmt.Errorf("%w: 0x%x", ErrDuplicateSession, id)
		}
		t.sessions[id] = timeout
	}
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("session: restore table: %w", err)
	}
	return t, nil
}
