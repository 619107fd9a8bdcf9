package migrate

import (
	"encoding/binary"
	"hash/crc32"
	"strings"
)

// digestVersion is DigestCalculator's DIGEST_VERSION.
const digestVersion = 2

// nodeDigest is DigestCalculator.calculateDigest: a CRC-32 of the path
// ("/" counts as the root's ""), the data and the StatPersisted fields;
// 0 for nodes under /zookeeper/, which ZooKeeper leaves out.
func nodeDigest(path string, data []byte, s *statPersisted) int64 {
	if strings.HasPrefix(path, "/zookeeper/") {
		return 0
	}
	if path == "/" {
		path = ""
	}
	var b [60]byte
	binary.BigEndian.PutUint64(b[0:], uint64(s.czxid))
	binary.BigEndian.PutUint64(b[8:], uint64(s.mzxid))
	binary.BigEndian.PutUint64(b[16:], uint64(s.pzxid))
	binary.BigEndian.PutUint64(b[24:], uint64(s.ctime))
	binary.BigEndian.PutUint64(b[32:], uint64(s.mtime))
	binary.BigEndian.PutUint32(b[40:], uint32(s.version))
	binary.BigEndian.PutUint32(b[44:], uint32(s.cversion))
	binary.BigEndian.PutUint32(b[48:], uint32(s.aversion))
	binary.BigEndian.PutUint64(b[52:], uint64(s.ephemeralOwner))
	crc := crc32.ChecksumIEEE([]byte(path))
	crc = crc32.Update(crc, crc32.IEEETable, data)
	crc = crc32.Update(crc, crc32.IEEETable, b[:])
	return int64(crc)
}

// digest is DataTree.getTreeDigest: the sum of every node's digest.
func (t *zkTree) digest() int64 {
	var sum int64
	for p, n := range t.nodes {
		sum += nodeDigest(p, n.data, &n.stat)
	}
	return sum
}
