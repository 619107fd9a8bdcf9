package migrate

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Source is a ZooKeeper server's data: its dataDir (snapshots in
// DataDir/version-2) and dataLogDir (transaction logs in
// LogDir/version-2; empty means DataDir).
type Source struct {
	DataDir string
	LogDir  string
	// ExtendedTypes is zookeeper.extendedTypesEnabled of the ZooKeeper
	// that wrote the data: with it off, ZooKeeper takes TTL owner
	// encodings for sessions.
	ExtendedTypes bool
	// Progress, when set, gets a line every few seconds while a large
	// snapshot or log is read.
	Progress io.Writer
	// MaxBuffer is jute.maxbuffer of the ZooKeeper that wrote the data (0
	// means its default, 1 MiB - 1): a log entry longer than it plus as
	// much again is refused, as ZooKeeper refuses it.
	MaxBuffer int
}

// Image is the state ZooKeeper would restore from a data directory.
type Image struct {
	tree *zkTree
	// Sessions maps every session id to its timeout (ms).
	Sessions map[int64]int32
	// LastZxid is the highest zxid applied (DataTree.lastProcessedZxid).
	LastZxid int64
	// Snapshot is the snapshot file read; Logs the logs read after it.
	Snapshot string
	Logs     []string
	// Txns counts the transactions replayed after the snapshot.
	Txns int
	// Digest says how the replayed tree compared with the digest
	// ZooKeeper logged ("" when there was none to compare with).
	Digest string
	// Notes lists what ZooKeeper's restore would only log: torn last log
	// entries it drops, missing zxids, dead sessions' ephemerals deleted.
	Notes []string
}

// Nodes returns the number of znodes, the root included.
func (im *Image) Nodes() int { return len(im.tree.nodes) }

// Load reads the newest snapshot in src and the logs after it, replaying
// them as ZooKeeper's FileTxnSnapLog.restore does, then deletes the
// ephemerals of sessions that no longer exist, as ZooKeeperServer.loadData
// does before serving. It refuses a snapshot ZooKeeper would skip as
// incomplete (its end mark is missing), or any file with damage; of a
// log, it drops only a torn last entry that loses nothing, and says so
// in Notes (see readLog and logPass).
func Load(src Source) (*Image, error) {
	logDir := src.LogDir
	if logDir == "" {
		logDir = src.DataDir
	}
	prog := newProgress(src.Progress)
	snapFile, err := newestSnapshot(filepath.Join(src.DataDir, "version-2"))
	if err != nil {
		return nil, err
	}
	prog.begin(filepath.Base(snapFile.path) + ": znodes read")
	snap, err := readSnapshot(snapFile.path, src.ExtendedTypes, prog)
	if err != nil {
		return nil, err
	}
	im := &Image{tree: snap.tree, Sessions: snap.sessions, LastZxid: snapFile.zxid, Snapshot: snapFile.path}
	r := &replayer{tree: snap.tree, sessions: snap.sessions, last: snapFile.zxid, notes: &im.Notes}
	lastDigest, err := im.replayLogs(filepath.Join(logDir, "version-2"), snapFile.zxid, maxEntryFor(src.MaxBuffer), r, prog)
	if err != nil {
		return nil, err
	}
	im.LastZxid = r.last
	if err := im.checkDigest(lastDigest, snap.digest); err != nil {
		return nil, err
	}
	im.killDeadSessions()
	if err := snap.tree.acls.unresolved(snap.tree, snapFile.path); err != nil {
		return nil, err
	}
	return im, nil
}

// newestSnapshot returns the snapshot with the highest zxid in dir, if it
// is complete.
func newestSnapshot(dir string) (zkFile, error) {
	snaps, err := listFiles(dir, "snapshot")
	if err != nil && !os.IsNotExist(err) {
		return zkFile{}, err
	}
	if len(snaps) == 0 {
		return zkFile{}, fmt.Errorf("%w in %s", ErrNoSnapshot, dir)
	}
	newest := snaps[len(snaps)-1]
	if filepath.Ext(newest.path) == ".gz" || filepath.Ext(newest.path) == ".snappy" {
		return newest, nil // readSnapshot refuses it with the reason
	}
	ok, err := validSnapshotEnd(newest.path)
	if err != nil {
		return zkFile{}, err
	}
	if !ok {
		older := "there is no older one"
		if len(snaps) > 1 {
			older = "it would load " + filepath.Base(snaps[len(snaps)-2].path) + " instead"
		}
		return zkFile{}, corrupt(newest.path, -1, "the snapshot is incomplete (it does not end with ZooKeeper's end mark); "+
			"ZooKeeper skips such a file (%s): move it aside to import what ZooKeeper would load", older)
	}
	return newest, nil
}

// replayLogs applies every logged txn after zxid and returns the digest
// logged with the last one applied, if any.
func (im *Image) replayLogs(dir string, zxid int64, maxEntry int, r *replayer, prog *progress) (*txnDigest, error) {
	logs, err := listFiles(dir, "log")
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	lp := &logPass{im: im, r: r, snapZxid: zxid, prev: zxid}
	read := logsFrom(logs, zxid+1)
	for i, lf := range read {
		im.Logs = append(im.Logs, lf.path)
		prog.begin(filepath.Base(lf.path) + ": transactions read")
		torn, err := readLog(lf.path, maxEntry, func(t *txn) error {
			prog.step(func() string { return fmt.Sprintf("(zxid %#x)", t.hdr.zxid) })
			return lp.apply(lf, t)
		})
		if err != nil {
			return nil, err
		}
		if torn != nil {
			lp.torn(lf, torn, i == len(read)-1)
		}
	}
	lp.finish()
	return lp.last, nil
}

// noteGap notes zxids missing within one epoch: ZooKeeper loads such logs
// without a word, but transactions (a log file) may be missing.
func (im *Image) noteGap(prev, next int64) {
	if prev>>32 == next>>32 && next > prev+1 {
		im.Notes = append(im.Notes, fmt.Sprintf("zxids %#x to %#x are not in the logs (a log file may be missing); ZooKeeper would load the same", prev+1, next-1))
	}
}

// checkDigest compares the replayed tree with the digest ZooKeeper logged
// with the last transaction, or, without logs, with the snapshot's digest
// when it was taken at the snapshot's own zxid.
func (im *Image) checkDigest(logged *txnDigest, snap *zxidDigest) error {
	var want int64
	switch {
	case im.Txns > 0 && logged != nil && logged.version == digestVersion:
		want = logged.tree
	case im.Txns == 0 && snap != nil && snap.version == digestVersion && snap.zxid == im.LastZxid:
		want = snap.digest
	default:
		return nil
	}
	if got := im.tree.digest(); got != want {
		return fmt.Errorf("%w at zxid %#x (logged %#x, replayed %#x)", ErrDigest, im.LastZxid, want, got)
	}
	im.Digest = fmt.Sprintf("tree digest matches ZooKeeper's at zxid %#x", im.LastZxid)
	return nil
}

// killDeadSessions deletes the ephemerals of sessions not in the session
// table, at the last zxid (ZooKeeperServer.loadData's clean-up).
func (im *Image) killDeadSessions() {
	for s, set := range im.tree.ephemerals {
		if _, ok := im.Sessions[s]; ok || len(set) == 0 {
			continue
		}
		im.Notes = append(im.Notes, fmt.Sprintf("session %#x owns %d ephemerals but no longer exists: they are deleted, as ZooKeeper deletes them when it starts", s, len(set)))
		im.tree.killSession(s, im.LastZxid, nil)
	}
}
