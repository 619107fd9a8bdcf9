package consensus

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-msgpack/v2/codec"
	"github.com/hashicorp/raft"
	"go.etcd.io/bbolt"
)

// Verify checks the durable stores of a server whose dataDir is dataDir
// and whose dataLogDir is logDir (empty: dataDir) without starting it and
// without writing to the log or snapshots: every log entry's checksum,
// raft-wal's framing and commit CRCs, and every snapshot's CRC and
// contents. It locks the directories like a server does (zkraft.lock gets
// its pid), so it refuses a directory in use. It returns one report per
// file, and an error wrapping ErrDamaged if any file is damaged (a torn
// tail is a note, not damage: the next start truncates it).
func Verify(dataDir, logDir string) ([]FileReport, error) {
	if logDir == "" {
		logDir = dataDir
	}
	for _, d := range []string{dataDir, logDir} {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("consensus: %s is not a directory", d)
		}
	}
	locks, err := lockDirs(dataDir, logDir)
	if err != nil {
		return nil, err
	}
	defer locks.unlock()
	var reports []FileReport
	var errs []error
	walDir, boltPath := filepath.Join(logDir, walDirName), filepath.Join(logDir, logFileName)
	found := false
	if exists(walDir) {
		found = true
		r, _, err := checkWAL(walDir, false, false)
		reports, errs = append(reports, r...), append(errs, err)
	}
	if exists(boltPath) {
		found = true
		r := verifyBolt(boltPath)
		reports, errs = append(reports, r), append(errs, r.Damage)
	}
	snapDir := filepath.Join(dataDir, snapshotDirName, snapshotsSubdir)
	if exists(snapDir) {
		found = true
		r, err := checkSnapshotsAll(snapDir)
		reports, errs = append(reports, r...), append(errs, err)
	}
	if !found {
		return nil, fmt.Errorf("consensus: no zkraft log or snapshots in %s", dataDir)
	}
	return reports, errors.Join(errs...)
}

// checkSnapshotsAll checks every snapshot in dir, going on past damage.
func checkSnapshotsAll(dir string) ([]FileReport, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("consensus: %w", err)
	}
	var reports []FileReport
	var errs []error
	for _, e := range ents {
		if e.IsDir() && filepath.Ext(e.Name()) != snapshotTmpSuffix {
			r := checkSnapshot(filepath.Join(dir, e.Name()), true)
			reports, errs = append(reports, r), append(errs, r.Damage)
		}
	}
	return reports, errors.Join(errs...)
}

// verifyBolt reads every entry of a raft-boltdb log read-only (raft-boltdb
// itself cannot open a file read-only) and checks its checksum. bbolt
// keeps no per-value offsets, so damage is located by entry.
func verifyBolt(path string) (rep FileReport) {
	rep.Path = path
	defer func() {
		if p := recover(); p != nil {
			rep.Damage = damaged(path, -1, 0, "bolt database unreadable: %v", p)
		}
	}()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		rep.Damage = damaged(path, -1, 0, "cannot open: %v", err)
		return rep
	}
	defer db.Close()
	var count, first, last uint64
	err = db.View(func(tx *bbolt.Tx) error {
		logs, conf := tx.Bucket([]byte("logs")), tx.Bucket([]byte("conf"))
		if logs == nil || conf == nil {
			return damaged(path, -1, 0, "raft-boltdb's buckets are missing")
		}
		from := ^uint64(0)
		if raw := conf.Get(sumFromKey); len(raw) == 8 {
			from = binary.BigEndian.Uint64(raw)
		}
		return logs.ForEach(func(k, v []byte) error {
			index := binary.BigEndian.Uint64(k)
			var l raft.Log
			if err := codec.NewDecoder(bytes.NewReader(v), &codec.MsgpackHandle{}).Decode(&l); err != nil {
				return damaged(path, -1, index, "entry does not decode: %v", err)
			}
			if l.Index != index {
				return damaged(path, -1, index, "entry says index %d", l.Index)
			}
			if err := openEntry(&l, index < from); err != nil {
				return damaged(path, -1, index, "%v", err)
			}
			if count == 0 {
				first = index
			}
			count, last = count+1, index
			return nil
		})
	})
	rep.Damage = err
	rep.Summary = fmt.Sprintf("entries %d-%d", first, last)
	if count == 0 {
		rep.Summary = "no entries"
	}
	return rep
}
