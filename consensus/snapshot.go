package consensus

import (
	"fmt"
	"io"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// Snapshot implements raft.FSM. It encodes the state at once, under the read
// lock, so Persist can run concurrently with later applies.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var e wire.Encoder
	e.Long(int64(f.term))
	e.Int(int32(f.counter))
	e.Long(f.st.LastZxid)
	f.st.Sessions.Snapshot(&e)
	f.st.Tree.Snapshot(&e)
	e.Long(f.configVersion)
	encodePeers(&e, f.members)
	return &snapshot{data: e.Bytes()}, nil
}

// Restore implements raft.FSM.
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return fmt.Errorf("consensus: read snapshot: %w", err)
	}
	d := wire.NewDecoder(b, 0)
	term, counter, last := d.Long(), d.Int(), d.Long()
	sessions, err := session.RestoreTable(d)
	if err != nil {
		return fmt.Errorf("consensus: restore sessions: %w", err)
	}
	tree, err := datatree.Restore(d, f.treeCfg)
	if err != nil {
		return fmt.Errorf("consensus: restore tree: %w", err)
	}
	configVersion, members := d.Long(), decodePeers(d)
	if err := d.Err(); err != nil {
		return fmt.Errorf("consensus: restore membership: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.term, f.counter = uint64(term), uint32(counter)
	f.st = State{Tree: tree, Sessions: sessions, LastZxid: last}
	if len(members) > 0 { // a reconfig happened before the snapshot
		f.members, f.configVersion = members, configVersion
		f.config = FormatMembership(members, configVersion)
		if f.onMembers != nil {
			f.onMembers(members)
		}
	}
	f.installConfig()
	return nil
}

type snapshot struct{ data []byte }

func (s *snapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s.data); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s *snapshot) Release() {}
