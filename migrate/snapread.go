package migrate

import (
	"bufio"
	"encoding/binary"
	"hash"
	"hash/adler32"
	"io"
	"os"
	"strings"

	"github.com/zkraft/zkraft/wire"
)

// File headers (FileHeader: int magic, int version, long dbid).
const (
	snapMagic   int32 = 0x5a4b534e // "ZKSN"
	logMagic    int32 = 0x5a4b4c47 // "ZKLG"
	fileVersion int32 = 2
	headerBytes       = 16
)

// snapshot is what a ZooKeeper snapshot file holds.
type snapshot struct {
	tree     *zkTree
	sessions map[int64]int32
	digest   *zxidDigest // nil when the file has none
}

// zxidDigest is DataTree.ZxidDigest: the tree digest at a zxid.
type zxidDigest struct {
	zxid    int64
	version int32
	digest  int64
}

// minNodeBytes is the smallest encoded node: path and data lengths, ACL
// reference and StatPersisted.
const minNodeBytes = 4 + 4 + 8 + 6*8 + 3*4

// readSnapshot reads a snapshot file as FileSnap.deserialize does, then
// checks its Adler-32 seal, the optional zxid digest and its second seal.
func readSnapshot(path string, extended bool, prog *progress) (*snapshot, error) {
	if strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".snappy") {
		return nil, badFormat(path, -1, "compressed snapshots (zookeeper.snapshot.compression.method) are not read; "+
			"have ZooKeeper write an uncompressed one (compression method none) and import that")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return decodeSnapshot(f, fi.Size(), path, extended, prog)
}

// decodeSnapshot reads a snapshot of size bytes from r; path names it in
// errors.
func decodeSnapshot(r io.ReaderAt, size int64, path string, extended bool, prog *progress) (*snapshot, error) {
	d := wire.NewReaderDecoder(bufio.NewReaderSize(io.NewSectionReader(r, 0, size), bufSize(size)), size, 0)
	if err := readHeader(d, path, snapMagic, "snapshot"); err != nil {
		return nil, err
	}
	s := &snapshot{tree: newTree(extended), sessions: make(map[int64]int32)}
	if err := readSessions(d, path, s.sessions); err != nil {
		return nil, err
	}
	if err := readACLCache(d, path, &s.tree.acls); err != nil {
		return nil, err
	}
	if err := readNodes(d, path, s.tree, prog, size); err != nil {
		return nil, err
	}
	s.tree.acls.purgeUnused()
	sum := &sealSum{r: r, h: adler32.New()}
	if err := readSeal(d, sum, path, int64(d.Offset())); err != nil {
		return nil, err
	}
	if d.Remaining() == 0 {
		return s, nil
	}
	start := int64(d.Offset())
	s.digest = readZxidDigest(d)
	if d.Err() != nil {
		return nil, corrupt(path, start, "the zxid digest after the seal is cut short")
	}
	if err := readSeal(d, sum, path, int64(d.Offset())); err != nil {
		return nil, err
	}
	return s, nil
}

// readHeader checks a FileHeader.
func readHeader(d *wire.Decoder, path string, magic int32, what string) error {
	m, v := d.Int(), d.Int()
	d.Long()
	switch {
	case d.Err() != nil:
		return corrupt(path, 0, "the file ends within its %d-byte header", headerBytes)
	case m != magic:
		return badFormat(path, 0, "not a ZooKeeper %s (magic %#x, want %#x)", what, uint32(m), uint32(magic))
	case v != fileVersion:
		return badFormat(path, 4, "%s format version %d; ZooKeeper 3.x writes version %d", what, v, fileVersion)
	}
	return nil
}

// readSessions reads the session list: count, then (id, timeout) pairs.
func readSessions(d *wire.Decoder, path string, into map[int64]int32) error {
	off := int64(d.Offset())
	n := d.Count(12)
	for i := 0; i < n && d.Err() == nil; i++ {
		id, timeout := d.Long(), d.Int()
		into[id] = timeout
	}
	if d.Err() != nil || n < 0 {
		return corrupt(path, off, "bad session list: %v", errOr(d.Err(), "null count"))
	}
	return nil
}

// readACLCache reads ReferenceCountedACLCache into c: count, then (id,
// ACL vector) pairs.
func readACLCache(d *wire.Decoder, path string, c *aclCache) error {
	off := int64(d.Offset())
	n := d.Count(12)
	for i := 0; i < n && d.Err() == nil; i++ {
		at := int64(d.Offset())
		id := d.Long()
		k := d.Count(12)
		if k < 0 {
			return corrupt(path, at, "ACL list %d is null", id)
		}
		acl := make([]wire.ACL, 0, d.Prealloc(k, 12))
		for j := 0; j < k && d.Err() == nil; j++ {
			var a wire.ACL
			a.Decode(d)
			acl = append(acl, a)
		}
		if d.Err() == nil {
			c.read(id, acl)
		}
	}
	if d.Err() != nil || n < 0 {
		return corrupt(path, off, "bad ACL table: %v", errOr(d.Err(), "null count"))
	}
	return nil
}

// readNodes reads (path, DataNode) records up to the "/" that ends them,
// linking each node under its parent as DataTree.deserialize does.
func readNodes(d *wire.Decoder, file string, t *zkTree, prog *progress, size int64) error {
	for {
		off := int64(d.Offset())
		null := d.PeekNull()
		path := d.String()
		if d.Err() != nil || null {
			return corrupt(file, off, "bad node path: %v", errOr(d.Err(), "null"))
		}
		if path == "/" {
			break
		}
		n, err := readNode(d, file, off)
		if err != nil {
			return err
		}
		if err := t.linkLoaded(path, n, off); err != nil {
			return corrupt(file, off, "%v", err)
		}
		prog.step(func() string { return prog.percent(int64(d.Offset()), size) })
	}
	if t.nodes[""] == nil {
		return corrupt(file, int64(d.Offset()), "the snapshot has no root node")
	}
	return nil
}

// readNode reads one DataNode record: data, ACL reference, StatPersisted.
func readNode(d *wire.Decoder, file string, off int64) (*znode, error) {
	n := &znode{data: d.Buffer()}
	n.aclID = d.Long()
	s := &n.stat
	s.czxid, s.mzxid, s.ctime, s.mtime = d.Long(), d.Long(), d.Long(), d.Long()
	s.version, s.cversion, s.aversion = d.Int(), d.Int(), d.Int()
	s.ephemeralOwner, s.pzxid = d.Long(), d.Long()
	if d.Err() != nil {
		return nil, corrupt(file, off, "bad node record: %v", d.Err())
	}
	return n, nil
}

// linkLoaded adds a node read from a snapshot at off: "" is the root, any
// other path must have its parent already. A node whose ACL id the
// table lacks waits for the replay to define it.
func (t *zkTree) linkLoaded(path string, n *znode, off int64) error {
	t.acls.addUsage(n.aclID)
	if n.acl = t.acls.list(n.aclID); n.acl == nil {
		t.acls.await(path, off, n)
	}
	if path == "" {
		t.nodes[""] = n
		return nil
	}
	parent, child, ok := splitZKPath(path)
	if !ok || child == "" {
		return errPath(path)
	}
	p := t.nodes[parent]
	if p == nil {
		return errParent(path, parent)
	}
	if old := t.nodes[path]; old != nil {
		t.index(path, old.stat.ephemeralOwner, false)
	}
	t.nodes[path] = n
	p.addChild(child)
	t.index(path, n.stat.ephemeralOwner, true)
	return nil
}

// sealSum is the Adler-32 of a snapshot's first done bytes, read from the
// file again: the decoder reads ahead of what it has consumed.
type sealSum struct {
	r    io.ReaderAt
	h    hash.Hash32
	done int64
}

// upTo returns the Adler-32 of the file's first n bytes.
func (s *sealSum) upTo(n int64) (uint32, error) {
	if _, err := io.Copy(s.h, io.NewSectionReader(s.r, s.done, n-s.done)); err != nil {
		return 0, err
	}
	s.done = n
	return s.h.Sum32(), nil
}

// readSeal checks a seal at offset at (SnapStream.checkSealIntegrity): the
// Adler-32 of every byte before it, as a long, then the string "/".
func readSeal(d *wire.Decoder, sum *sealSum, path string, at int64) error {
	val := d.Long()
	_ = d.String() // "/", which ZooKeeper does not check
	if d.Err() != nil {
		return corrupt(path, at, "the file ends before its checksum seal")
	}
	got, err := sum.upTo(at)
	if err != nil {
		return err
	}
	if int64(got) != val {
		return corrupt(path, at, "Adler-32 checksum mismatch (stored %#x, computed %#x): the snapshot is damaged", val, got)
	}
	return nil
}

// readZxidDigest reads a ZxidDigest; versions before 2 wrote the digest as
// a hex string.
func readZxidDigest(d *wire.Decoder) *zxidDigest {
	z := &zxidDigest{zxid: d.Long(), version: d.Int()}
	if z.version < 2 {
		var v uint64
		for _, c := range d.String() {
			v = v<<4 | uint64(hexVal(c))
		}
		z.digest = int64(v)
	} else {
		z.digest = d.Long()
	}
	return z
}

func hexVal(c rune) byte {
	switch {
	case c >= '0' && c <= '9':
		return byte(c - '0')
	case c >= 'a' && c <= 'f':
		return byte(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return byte(c - 'A' + 10)
	}
	return 0
}

// validSnapshotEnd is SnapStream.isValidCheckedStream: a complete
// snapshot is at least 10 bytes and ends with the string "/" (int 1, '/').
func validSnapshotEnd(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() < 10 {
		return false, err
	}
	var tail [5]byte
	if _, err := f.ReadAt(tail[:], fi.Size()-5); err != nil {
		return false, err
	}
	return binary.BigEndian.Uint32(tail[:4]) == 1 && tail[4] == '/', nil
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}
