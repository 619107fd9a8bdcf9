package migrate

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/zkraft/zkraft/wire"
)

// zkFile is a snapshot.<zxid> or log.<zxid> file and the zxid its name
// carries.
type zkFile struct {
	path string
	zxid int64
}

// listFiles returns dir's files called prefix.<hex zxid>[.suffix], sorted
// by zxid (Util.getZxidFromName, Util.sortDataDir); files whose name
// carries no zxid are not ZooKeeper's and are left out.
func listFiles(dir, prefix string) ([]zkFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []zkFile
	for _, e := range ents {
		parts := strings.Split(e.Name(), ".")
		if e.IsDir() || len(parts) < 2 || parts[0] != prefix {
			continue
		}
		z, err := strconv.ParseInt(parts[1], 16, 64)
		if err != nil {
			continue
		}
		out = append(out, zkFile{filepath.Join(dir, e.Name()), z})
	}
	slices.SortStableFunc(out, func(a, b zkFile) int { return compareInt(a.zxid, b.zxid) })
	return out, nil
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// logsFrom picks the logs a restore from zxid reads, as FileTxnIterator
// does: every log named zxid or later, and the last one named before it
// (which may hold zxid itself).
func logsFrom(logs []zkFile, zxid int64) []zkFile {
	start := len(logs)
	for i := len(logs) - 1; i >= 0; i-- {
		start = i
		if logs[i].zxid < zxid {
			break
		}
	}
	return logs[start:]
}

// tornTail is the end of a log a crash left unfinished: its last entry
// cut short, which ZooKeeper drops as it reads (see readLog).
type tornTail struct {
	file   string
	offset int64
	what   string // what is wrong, and which transaction it is
	// count is how many transactions the file holds before it, lastZxid
	// the last one's.
	count    int
	lastZxid int64
}

// maxEntryFor is the longest log entry a ZooKeeper with jute.maxbuffer
// maxBuffer reads (0 means its default, 1 MiB - 1): maxBuffer plus
// zookeeper.jute.maxbuffer.extrasize, which defaults to maxBuffer and is
// never below 1024.
func maxEntryFor(maxBuffer int) int {
	if maxBuffer <= 0 {
		maxBuffer = defaultMaxBuffer
	}
	return maxBuffer + max(maxBuffer, 1024)
}

// defaultMaxBuffer is jute.maxbuffer's default.
const defaultMaxBuffer = 0xfffff

// readLog reads one transaction log, calling fn for every transaction in
// file order, as FileTxnIterator.next does: each entry is an Adler-32 of
// the transaction, its length-prefixed bytes and the byte 'B', and the
// rest of the file is zero-filled (preallocated).
//
// ZooKeeper takes any entry it cannot read to the end (the file ends in
// it, its length is 0, its end mark is not 'B') for the end of the file
// and goes on with the next log, so damage there silently loses the
// transactions after it. readLog is stricter: such an entry is returned
// as a tornTail (a crash while ZooKeeper appended it; the caller decides
// whether the log may end so) only when no complete entry follows it, and
// is refused as ErrTorn otherwise. What ZooKeeper refuses is refused too:
// a length that is -1, negative or over maxEntry ("Unreasonable length"),
// a checksum that does not match ("CRC check failed"), a transaction that
// does not decode. Errors name the file, the byte offset and the
// transaction (its ordinal in the file and the zxid before it).
func readLog(path string, maxEntry int, fn func(t *txn) error) (*tornTail, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return decodeLog(f, fi.Size(), path, maxEntry, fn)
}

// decodeLog reads a log of size bytes from r; path names it in errors.
func decodeLog(r io.ReaderAt, size int64, path string, maxEntry int, fn func(t *txn) error) (*tornTail, error) {
	if maxEntry <= 0 {
		maxEntry = maxEntryFor(0)
	}
	in := bufio.NewReaderSize(io.NewSectionReader(r, 0, size), bufSize(size))
	lr := &logReader{d: wire.NewReaderDecoder(in, size, 0), ra: r, size: size, path: path, maxEntry: maxEntry}
	if err := readHeader(lr.d, path, logMagic, "transaction log"); err != nil {
		return nil, err
	}
	for {
		off := int64(lr.d.Offset())
		t, tear, err := lr.entry(off)
		switch {
		case err != nil:
			return nil, err
		case tear != "":
			return lr.torn(off, tear)
		case t == nil:
			return nil, nil
		}
		if err := fn(t); err != nil {
			return nil, err
		}
		lr.count++
		lr.lastZxid = t.hdr.zxid
	}
}

// logReader reads one log's entries.
type logReader struct {
	d        *wire.Decoder
	ra       io.ReaderAt
	size     int64
	path     string
	maxEntry int // the longest entry ZooKeeper reads (maxEntryFor)
	// count is how many transactions were read, lastZxid the last one's.
	count    int
	lastZxid int64
}

// which names the transaction being read.
func (lr *logReader) which() string {
	if lr.count == 0 {
		return "transaction 1 of the file (its first)"
	}
	return fmt.Sprintf("transaction %d of the file (the one after zxid %#x)", lr.count+1, lr.lastZxid)
}

func (lr *logReader) damage(off int64, format string, args ...any) error {
	return corrupt(lr.path, off, "%s: %s", lr.which(), fmt.Sprintf(format, args...))
}

// entry reads the entry at off: a transaction; or nil at the end of the
// file (nothing, or only zero bytes, left); or a tear, an entry ZooKeeper
// would take for the end of the file although bytes other than zeros
// are left, said in words.
func (lr *logReader) entry(off int64) (*txn, string, error) {
	d := lr.d
	if d.Remaining() == 0 {
		return nil, "", nil
	}
	if d.Remaining() < 12 {
		return lr.endOrTear(off, "the file ends within an entry's checksum and length")
	}
	sum, n := d.Long(), d.Int()
	switch {
	case n == 0:
		return lr.endOrTear(off, "an entry of length 0 (where ZooKeeper's zero fill begins), with bytes other than zeros after it")
	case n == -1:
		return nil, "", lr.damage(off+8, "entry length -1 (a null buffer); ZooKeeper fails on it too")
	case n < 0 || int(n) > lr.maxEntry:
		return nil, "", lr.damage(off+8, "entry length %d is unreasonable (more than %d, jute.maxbuffer plus its extra size); "+
			"ZooKeeper refuses it too (\"Unreasonable length\")", n, lr.maxEntry)
	case int(n) >= d.Remaining():
		return nil, fmt.Sprintf("the file ends within the %d-byte transaction", n), nil
	}
	b := d.Bytes(int(n))
	if d.Err() != nil {
		return nil, "", lr.damage(off, "%v", d.Err())
	}
	if eor := d.Byte(); eor != 'B' {
		return nil, fmt.Sprintf("the %d-byte transaction's end mark is %#x, not 'B' (a partial write)", n, eor), nil
	}
	if got := int64(adler32.Checksum(b)); got != sum {
		return nil, "", lr.damage(off, "transaction checksum mismatch (stored %#x, computed %#x): CRC check failed, as ZooKeeper reports it", sum, got)
	}
	t, err := decodeTxn(b)
	if err != nil {
		return nil, "", lr.damage(off+12, "%v", err)
	}
	return t, "", nil
}

// endOrTear is the end of the file when nothing but zero bytes is left
// from off on, and the tear what otherwise.
func (lr *logReader) endOrTear(off int64, what string) (*txn, string, error) {
	nz, err := firstNonZero(lr.ra, off, lr.size)
	if err != nil {
		return nil, "", err
	}
	if nz < 0 {
		return nil, "", nil
	}
	return nil, what, nil
}

// torn decides about a tear at off: a torn last entry when no complete
// entry follows it, damage otherwise.
func (lr *logReader) torn(off int64, what string) (*tornTail, error) {
	what = lr.which() + ": " + what
	next, err := completeEntryAfter(lr.ra, off+1, lr.size, lr.maxEntry)
	if err != nil {
		return nil, err
	}
	if next >= 0 {
		return nil, &FileError{File: lr.path, Offset: off, Kind: ErrTorn, What: fmt.Sprintf("%s, yet a complete entry follows at offset %d, "+
			"so this is damage, not a crash while the last entry was appended: ZooKeeper would drop everything from offset %d on without a word "+
			"(to import what ZooKeeper would load, truncate the file at offset %d)", what, next, off, off)}
	}
	return &tornTail{file: lr.path, offset: off, what: what, count: lr.count, lastZxid: lr.lastZxid}, nil
}

// firstNonZero returns the offset of the first byte other than zero in
// r from off to size, or -1.
func firstNonZero(r io.ReaderAt, off, size int64) (int64, error) {
	buf := make([]byte, min(max(size-off, 0), 256<<10))
	zeros := make([]byte, len(buf))
	for off < size {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if !bytes.Equal(buf[:n], zeros[:n]) {
			for i, c := range buf[:n] {
				if c != 0 {
					return off + int64(i), nil
				}
			}
		}
		off += int64(n)
		if err != nil && off < size {
			return -1, err
		}
	}
	return -1, nil
}

// scanChunk is how much of a log completeEntryAfter reads at once.
const scanChunk = 1 << 20

// completeEntryAfter returns the offset of the first complete log entry
// (a checksum whose high half is zero, Adler-32 having 32 bits; a length
// from 1 to maxEntry; the bytes; 'B'; and a checksum that matches them)
// that starts at from or later, or -1.
func completeEntryAfter(r io.ReaderAt, from, size int64, maxEntry int) (int64, error) {
	buf := make([]byte, min(scanChunk, max(size-from, 0))+12)
	for base := from; base+13 <= size; base += scanChunk {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), size-base)], base)
		if n < min(len(buf), int(size-base)) {
			return -1, err
		}
		b := buf[:n]
		for i := 0; i+12 <= len(b) && i < scanChunk; i++ {
			ln := int64(binary.BigEndian.Uint32(b[i+8:]))
			if b[i]|b[i+1]|b[i+2]|b[i+3] != 0 || ln == 0 || ln > int64(maxEntry) || base+int64(i)+12+ln >= size {
				continue
			}
			ok, err := entryAt(r, b[i:], base+int64(i), ln)
			if err != nil || ok {
				return base + int64(i), err
			}
		}
	}
	return -1, nil
}

// entryAt checks the candidate entry at off, of length ln, whose first
// bytes are in b: its end mark, then its checksum.
func entryAt(r io.ReaderAt, b []byte, off, ln int64) (bool, error) {
	var whole []byte
	if int64(len(b)) > 12+ln {
		whole = b[:12+ln+1]
	} else {
		var mark [1]byte
		if _, err := r.ReadAt(mark[:], off+12+ln); err != nil {
			return false, err
		}
		if mark[0] != 'B' {
			return false, nil
		}
		whole = make([]byte, 12+ln+1)
		if _, err := r.ReadAt(whole, off); err != nil {
			return false, err
		}
	}
	return whole[12+ln] == 'B' && binary.BigEndian.Uint64(whole) == uint64(adler32.Checksum(whole[12:12+ln])), nil
}

// bufSize is the read buffer for a file of size bytes: 1 MiB, or less for
// a smaller file.
func bufSize(size int64) int { return int(min(max(size, 4096), 1<<20)) }
