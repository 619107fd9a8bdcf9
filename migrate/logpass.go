package migrate

import (
	"fmt"
	"path/filepath"
)

// logPass replays the logs after a snapshot, one file after another, and
// decides about their torn ends.
//
// A crash while ZooKeeper appends to its log leaves the last entry torn.
// In the newest log that entry was never acknowledged, and ZooKeeper
// drops it as it loads: so does the import. A torn entry can end an
// older log too: started again after the crash, ZooKeeper dropped it
// and logged the transactions that came next in a new file, from the
// zxid the torn one had. That is accepted when the next logged
// transaction has that very zxid, so that nothing is lost. Anything else
// (the next transaction further on, in the same epoch or another) means
// transactions that ZooKeeper would skip without a word: refused as
// ErrTorn.
type logPass struct {
	im       *Image
	r        *replayer
	snapZxid int64
	prev     int64      // the last zxid applied (for noteGap)
	last     *txnDigest // logged with the last txn applied
	// tear is an older log's torn end, until the next transaction shows
	// whether any is lost; after is the zxid just before it.
	tear  *tornTail
	after int64
}

// apply applies one logged txn of lf, unless the snapshot has it.
func (lp *logPass) apply(lf zkFile, t *txn) error {
	if lp.tear != nil {
		if err := lp.settle(lf, t.hdr.zxid); err != nil {
			return err
		}
	}
	if t.hdr.zxid <= lp.snapZxid {
		return nil // before the snapshot: the iterator skips them
	}
	lp.im.noteGap(lp.prev, t.hdr.zxid)
	lp.prev = t.hdr.zxid
	lp.im.Txns++
	lp.last = t.digest
	return lp.r.apply(t)
}

// torn takes note of the torn end of lf, the newest log or not.
func (lp *logPass) torn(lf zkFile, tail *tornTail, newest bool) {
	if newest {
		lp.note(tail, "the newest log's last entry, torn by a crash while ZooKeeper appended it (so never acknowledged)")
		return
	}
	lp.tear, lp.after = tail, tail.lastZxid
	if tail.count == 0 {
		lp.after = lf.zxid - 1 // a log is named after its first zxid
	}
}

// settle decides about an older log's torn end once the next logged
// transaction, next in lf, is known.
func (lp *logPass) settle(lf zkFile, next int64) error {
	tail := lp.tear
	lp.tear = nil
	if next == lp.after+1 {
		lp.note(tail, fmt.Sprintf("torn by a crash; ZooKeeper, started again, logged the transactions from zxid %#x on in %s, "+
			"so none is lost", next, filepath.Base(lf.path)))
		return nil
	}
	return &FileError{File: tail.file, Offset: tail.offset, Kind: ErrTorn, What: fmt.Sprintf("%s; this is not the newest log, "+
		"and the next logged transaction (zxid %#x, in %s) is not the one after zxid %#x: ZooKeeper would skip the rest of this file "+
		"without a word, losing the transactions in between", tail.what, next, filepath.Base(lf.path), lp.after)}
}

// finish accepts an older log's torn end that no transaction follows.
func (lp *logPass) finish() {
	if lp.tear != nil {
		lp.note(lp.tear, "torn by a crash; no transaction is logged after it")
		lp.tear = nil
	}
}

func (lp *logPass) note(tail *tornTail, why string) {
	lp.im.Notes = append(lp.im.Notes, fmt.Sprintf("%s at offset %d: %s: %s; dropped, as ZooKeeper drops it", tail.file, tail.offset, tail.what, why))
}
