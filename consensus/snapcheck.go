package consensus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc64"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/datatree"
)

// Snapshots on disk are hashicorp/raft's FileSnapshotStore: one directory
// per snapshot holding meta.json (index, term, membership, size and a
// CRC-64 (ECMA) of state.bin) and state.bin (zkraft's snapshot format,
// snapshot.go). Raft checks the CRC when it opens a snapshot, but on a
// mismatch, or a meta.json it cannot parse, it quietly falls back to an
// older snapshot, or to none; so zkraft checks every snapshot itself
// before Raft starts and refuses to start on a damaged one.

// snapMeta is meta.json as FileSnapshotStore writes it.
type snapMeta struct {
	raft.SnapshotMeta
	CRC []byte
}

// checkSnapshots checks every snapshot in dir (FileSnapshotStore's
// "snapshots" directory). With decode, each state
// is also decoded in full (zkserver verify); at start the CRC suffices, as
// Raft decodes the one it restores anyway.
func checkSnapshots(dir string, decode bool) ([]FileReport, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("consensus: %w", err)
	}
	var reports []FileReport
	for _, e := range ents {
		if !e.IsDir() || strings.HasSuffix(e.Name(), snapshotTmpSuffix) {
			continue // an unfinished snapshot, which Raft ignores and removes
		}
		rep := checkSnapshot(filepath.Join(dir, e.Name()), decode)
		reports = append(reports, rep)
		if rep.Damage != nil {
			return reports, rep.Damage
		}
	}
	return reports, nil
}

// readSnapMeta reads and parses a snapshot's meta.json.
func readSnapMeta(path string) (snapMeta, error) {
	var meta snapMeta
	raw, err := os.ReadFile(path)
	if err != nil {
		return meta, damaged(path, -1, 0, "cannot read: %v", err)
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return meta, damaged(path, -1, 0, "does not parse: %v", err)
	}
	return meta, nil
}

// checkSnapshot checks one snapshot directory.
func checkSnapshot(dir string, decode bool) FileReport {
	metaPath, statePath := filepath.Join(dir, snapshotMetaFile), filepath.Join(dir, snapshotStateFile)
	rep := FileReport{Path: statePath}
	meta, err := readSnapMeta(metaPath)
	if err != nil {
		rep.Path, rep.Damage = metaPath, err
		return rep
	}
	// meta.json has no checksum of its own, but its ID and the directory
	// are both named term-index-time: a changed index or term shows.
	if want := fmt.Sprintf("%d-%d-", meta.Term, meta.Index); meta.ID != filepath.Base(dir) || !strings.HasPrefix(meta.ID, want) {
		rep.Path, rep.Damage = metaPath, damaged(metaPath, -1, 0, "index %d, term %d and id %q disagree with the directory's name", meta.Index, meta.Term, meta.ID)
		return rep
	}
	f, err := os.Open(statePath)
	if err != nil {
		rep.Damage = damaged(statePath, -1, 0, "cannot open: %v", err)
		return rep
	}
	defer f.Close()
	h := crc64.New(crc64.MakeTable(crc64.ECMA))
	n, err := io.Copy(h, f)
	switch {
	case err != nil:
		rep.Damage = damaged(statePath, n, 0, "read failed: %v", err)
	case n != meta.Size:
		rep.Damage = damaged(statePath, min(n, meta.Size), 0, "file is %d bytes, meta.json says %d", n, meta.Size)
	case !bytes.Equal(h.Sum(nil), meta.CRC):
		rep.Damage = damaged(statePath, -1, 0, "CRC-64 mismatch (stored %x, computed %x); the damage is somewhere in the file", meta.CRC, h.Sum(nil))
	}
	if rep.Damage != nil {
		return rep
	}
	rep.Summary = fmt.Sprintf("snapshot at index %d, term %d, %d bytes", meta.Index, meta.Term, meta.Size)
	if decode {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			rep.Damage = damaged(statePath, -1, 0, "%v", err)
			return rep
		}
		plain, err := asPlain(f, meta.Size)
		if err == nil {
			err = newFSM(datatree.Config{ExtendedTypesEnabled: true}, nil, 0).Restore(io.NopCloser(plain))
		}
		if err != nil {
			rep.Damage = damaged(statePath, -1, 0, "CRC matches but the state does not decode: %v", err)
		}
	}
	return rep
}
