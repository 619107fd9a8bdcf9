package migrate

import (
	"bufio"
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

// tornTail is the end of a log file a crash left unfinished: a last
// transaction cut short, which ZooKeeper drops as it reads.
type tornTail struct {
	file   string
	offset int64
	what   string
}

// readLog reads one transaction log, calling fn for every transaction in
// file order, as FileTxnIterator.next does: each entry is an Adler-32 of
// the transaction, its length-prefixed bytes and the byte 'B'. A zero
// length is the preallocated, zero-filled rest of the file; an entry cut
// short (or whose end mark is not 'B') ends the file and is reported as a
// torn tail. A checksum that does not match, or a transaction that does
// not decode, is damage: ZooKeeper refuses to start on it as well.
func readLog(path string, fn func(t *txn) error) (*tornTail, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return decodeLog(f, fi.Size(), path, fn)
}

// decodeLog reads a log of size bytes from r; path names it in errors.
func decodeLog(r io.Reader, size int64, path string, fn func(t *txn) error) (*tornTail, error) {
	d := wire.NewReaderDecoder(bufio.NewReaderSize(r, bufSize(size)), size, 0)
	if err := readHeader(d, path, logMagic, "transaction log"); err != nil {
		return nil, err
	}
	for {
		off := int64(d.Offset())
		t, torn, err := readEntry(d, path, off)
		if t == nil || err != nil {
			return torn, err
		}
		if err := fn(t); err != nil {
			return nil, err
		}
	}
}

// readEntry reads the entry at off; nil, nil, nil at the zero-filled end.
func readEntry(d *wire.Decoder, path string, off int64) (*txn, *tornTail, error) {
	if d.Remaining() == 0 {
		return nil, nil, nil
	}
	tear := func(what string) (*txn, *tornTail, error) {
		return nil, &tornTail{path, off, what}, nil
	}
	if d.Remaining() < 12 {
		return tear("the file ends within an entry's checksum or length")
	}
	sum, n := d.Long(), d.Int()
	switch {
	case n == 0:
		return nil, nil, nil
	case n < 0:
		return nil, nil, corrupt(path, off+8, "entry length %d", n)
	case int(n) >= d.Remaining():
		return tear(fmt.Sprintf("the file ends within a %d-byte transaction", n))
	}
	b := d.Bytes(int(n))
	if d.Err() != nil {
		return nil, nil, corrupt(path, off, "%v", d.Err())
	}
	if eor := d.Byte(); eor != 'B' {
		return tear("the transaction's end mark is missing (a partial write)")
	}
	if got := int64(adler32.Checksum(b)); got != sum {
		return nil, nil, corrupt(path, off, "transaction checksum mismatch (stored %#x, computed %#x): CRC check failed, as ZooKeeper reports it", sum, got)
	}
	t, err := decodeTxn(b)
	if err != nil {
		return nil, nil, corrupt(path, off+12, "%v", err)
	}
	return t, nil, nil
}

// bufSize is the read buffer for a file of size bytes: 1 MiB, or less for
// a smaller file.
func bufSize(size int64) int { return int(min(max(size, 4096), 1<<20)) }
