package consensus

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/datatree"
)

// ErrHasData is returned by Seed when the directories already hold zkraft
// data, which it never overwrites.
var ErrHasData = errors.New("consensus: the directory already holds zkraft data")

// keyCurrentTerm is hashicorp/raft's stable-store key for the current term.
var keyCurrentTerm = []byte("CurrentTerm")

// seedIndex is the Raft index of a seeded snapshot: the first index there
// is, as if the state had been the first entry of the log.
const seedIndex = 1

// Seed writes a new durable data directory whose only content is st, as
// a snapshot a server configured with serverID and peers (none:
// standalone) starts from: an import from another system's data. The
// snapshot's Raft term, and the stored current term, are the zxid epoch
// of st.LastZxid (at least 1), so the first leader's term, hence the
// epoch of every zxid it assigns, is above it and zxids keep growing. The
// state's own zxid counters continue from st.LastZxid.
//
// Every member of an ensemble must be seeded with the same state and
// peers before any of them starts: they then agree on index, term and
// configuration, and elect a leader as after a restart. Seed refuses a
// directory that holds zkraft data already (ErrHasData).
func Seed(s Storage, serverID int64, peers []Peer, st State) (err error) {
	if !s.Durable() {
		return errors.New("consensus: seed: no data directory")
	}
	logDir := s.LogDir
	if logDir == "" {
		logDir = s.DataDir
	}
	for _, p := range []string{filepath.Join(logDir, walDirName), filepath.Join(logDir, logFileName), filepath.Join(s.DataDir, snapshotDirName)} {
		if exists(p) {
			return fmt.Errorf("%w: %s", ErrHasData, p)
		}
	}
	stores, err := openStores(s, len(peers) == 0, hclog.NewNullLogger(), nil)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := stores.close(); err == nil {
			err = cerr
		}
		if err != nil && stores.discard != nil {
			stores.discard()
		}
	}()
	if had, herr := raft.HasExistingState(stores.logs, stores.stable, stores.snaps); herr != nil || had {
		return errors.Join(herr, fmt.Errorf("%w: %s", ErrHasData, logDir))
	}
	term := max(uint64(st.LastZxid)>>32, 1)
	if err := stores.stable.SetUint64(keyCurrentTerm, term); err != nil {
		return fmt.Errorf("consensus: seed: %w", err)
	}
	return writeSeedSnapshot(stores.snaps, serverID, peers, st, term)
}

// writeSeedSnapshot persists st through the FSM's own snapshot code.
func writeSeedSnapshot(snaps raft.SnapshotStore, serverID int64, peers []Peer, st State, term uint64) error {
	f := newFSM(datatree.Config{}, nil, 0)
	f.st = st
	f.setCounter(uint64(st.LastZxid)>>32, uint32(st.LastZxid))
	snap, err := f.Snapshot()
	if err != nil {
		return err
	}
	defer snap.Release()
	// Create also fills the snapshot's legacy peer list, through a
	// transport's EncodePeer: every transport encodes an address as is.
	_, trans := raft.NewInmemTransport("")
	defer trans.Close()
	sink, err := snaps.Create(raft.SnapshotVersionMax, seedIndex, term, bootConfiguration(serverID, peers), seedIndex, trans)
	if err != nil {
		return fmt.Errorf("consensus: seed: %w", err)
	}
	if err := snap.Persist(sink); err != nil {
		return fmt.Errorf("consensus: seed: %w", err)
	}
	return nil
}
