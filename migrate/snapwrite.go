package migrate

import (
	"bufio"
	"hash"
	"hash/adler32"
	"io"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// snapDBID is the dbid FileSnap writes in its header.
const snapDBID int64 = -1

// snapWriter writes a ZooKeeper snapshot (FileSnap.serialize): header,
// sessions, ACL cache, nodes, "/", the Adler-32 seal, the zxid digest and
// a second seal.
type snapWriter struct {
	w   *bufio.Writer
	sum hash.Hash32
	e   wire.Encoder
	err error
}

func newSnapWriter(w io.Writer) *snapWriter {
	sum := adler32.New()
	return &snapWriter{w: bufio.NewWriterSize(io.MultiWriter(w, sum), 1<<20), sum: sum}
}

// flush writes the encoder's bytes out.
func (s *snapWriter) flush() {
	if s.err == nil {
		_, s.err = s.w.Write(s.e.Bytes())
	}
	s.e.Reset()
}

// seal writes the checksum of everything written so far, then "/".
func (s *snapWriter) seal() {
	s.flush()
	if s.err == nil {
		s.err = s.w.Flush()
	}
	s.e.Long(int64(s.sum.Sum32()))
	s.e.String("/")
	s.flush()
}

// writeSnapshot writes tree and sessions as a ZooKeeper snapshot at zxid.
// /zookeeper/config is written as a new ZooKeeper tree has it (empty, read
// only): a ZooKeeper ensemble member fills it when it starts.
func writeSnapshot(w io.Writer, tree *datatree.Tree, sessions *session.Table, zxid int64, prog *progress) error {
	s := newSnapWriter(w)
	s.e.Int(snapMagic)
	s.e.Int(fileVersion)
	s.e.Long(snapDBID)
	sessions.Snapshot(&s.e)
	ids, lists := aclIDs(tree)
	s.e.Int(int32(len(lists)))
	for i, acl := range lists {
		s.e.Long(int64(i + 1))
		wire.EncodeACLs(&s.e, acl)
	}
	var digest int64
	err := tree.WalkStored(func(path string, sn datatree.StoredNode) error {
		sn = exported(path, sn)
		id := ids[aclKey(sn.ACL)]
		st := statOf(&sn)
		digest += nodeDigest(path, sn.Data, &st)
		s.node(zkPath(path), sn.Data, id, &st)
		prog.step(func() string { return "" })
		return s.err
	})
	if err != nil {
		return err
	}
	s.e.String("/")
	s.seal()
	s.e.Long(zxid)
	s.e.Int(digestVersion)
	s.e.Long(digest)
	s.seal()
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err
}

// node writes one (path, DataNode) record.
func (s *snapWriter) node(path string, data []byte, acl int64, st *statPersisted) {
	e := &s.e
	e.String(path)
	e.Buffer(data)
	e.Long(acl)
	e.Long(st.czxid)
	e.Long(st.mzxid)
	e.Long(st.ctime)
	e.Long(st.mtime)
	e.Int(st.version)
	e.Int(st.cversion)
	e.Int(st.aversion)
	e.Long(st.ephemeralOwner)
	e.Long(st.pzxid)
	if e.Len() >= 64<<10 {
		s.flush()
	}
}

// exported is the node as it is exported: /zookeeper/config as a new tree
// has it.
func exported(path string, sn datatree.StoredNode) datatree.StoredNode {
	if path == configPath {
		return datatree.StoredNode{Data: []byte{}, ACL: wire.ReadACLUnsafe, Aversion: -1}
	}
	return sn
}

// zkPath maps the root to ZooKeeper's name for it in snapshots, "".
func zkPath(path string) string {
	if path == "/" {
		return ""
	}
	return path
}

func statOf(sn *datatree.StoredNode) statPersisted {
	return statPersisted{czxid: sn.Czxid, mzxid: sn.Mzxid, pzxid: sn.Pzxid, ctime: sn.Ctime, mtime: sn.Mtime,
		version: sn.Version, cversion: sn.Cversion, aversion: sn.Aversion, ephemeralOwner: sn.EphemeralOwner}
}

// aclIDs numbers the tree's distinct ACL lists from 1 in first-use order,
// as ZooKeeper's ACL cache numbers them.
func aclIDs(tree *datatree.Tree) (map[string]int64, [][]wire.ACL) {
	ids := map[string]int64{}
	var lists [][]wire.ACL
	tree.WalkStored(func(path string, sn datatree.StoredNode) error {
		k := aclKey(exported(path, sn).ACL)
		if _, ok := ids[k]; !ok {
			lists = append(lists, exported(path, sn).ACL)
			ids[k] = int64(len(lists))
		}
		return nil
	})
	return ids, lists
}

// aclKey is an ACL list's encoding, a map key.
func aclKey(acl []wire.ACL) string {
	var e wire.Encoder
	wire.EncodeACLs(&e, acl)
	return string(e.Bytes())
}
