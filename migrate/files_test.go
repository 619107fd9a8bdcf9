package migrate

import (
	"bytes"
	"encoding/binary"
	"hash/adler32"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// This file builds ZooKeeper files for the unit tests: snapshots through
// the exporter's writer, logs entry by entry.

const (
	sess1 int64 = 0x0100000000000001
	sess2 int64 = 0x0100000000000002
)

var digestACL = []wire.ACL{{Perms: wire.PermAll, ID: wire.Id{Scheme: "digest", ID: "u:x"}}, {Perms: wire.PermRead, ID: wire.AnyoneID}}

// sampleTree is a tree with a node of every kind, zxids up to 0x100000010.
func sampleTree(t *testing.T) *datatree.Tree {
	t.Helper()
	b := datatree.NewBuilder(datatree.Config{ExtendedTypesEnabled: true},
		datatree.StoredNode{Data: []byte{}, ACL: wire.OpenACLUnsafe, Cversion: 5, Pzxid: 0x100000009})
	add := func(p string, sn datatree.StoredNode) {
		if sn.ACL == nil {
			sn.ACL = wire.OpenACLUnsafe
		}
		require.NoError(t, b.Add(p, sn))
	}
	add("/zookeeper", datatree.StoredNode{Data: []byte{}})
	add("/zookeeper/quota", datatree.StoredNode{Data: []byte{}})
	add("/a", datatree.StoredNode{Data: []byte("a"), Czxid: 0x100000001, Mzxid: 0x100000004, Pzxid: 0x100000008,
		Ctime: 1000, Mtime: 2000, Version: 3, Cversion: 4, Aversion: 1, ACL: digestACL})
	add("/a/seq0000000003", datatree.StoredNode{Czxid: 0x100000005, Mzxid: 0x100000005, Pzxid: 0x100000005})
	add("/a/eph", datatree.StoredNode{Data: []byte("e"), Czxid: 0x100000006, Mzxid: 0x100000006, Pzxid: 0x100000006, EphemeralOwner: sess1})
	add("/box", datatree.StoredNode{Data: []byte{}, Czxid: 0x100000007, Mzxid: 0x100000007, Pzxid: 0x100000007, EphemeralOwner: -1 << 63})
	add("/ttl", datatree.StoredNode{Data: []byte("t"), Czxid: 0x100000009, Mzxid: 0x100000009, Pzxid: 0x100000009, EphemeralOwner: -0x0100000000000000 | 60000})
	return b.Finish()
}

// snapshotBytes encodes tree as a ZooKeeper snapshot at zxid.
func snapshotBytes(t *testing.T, tree *datatree.Tree, sessions map[int64]int32, zxid int64) []byte {
	t.Helper()
	table := session.NewTable()
	for id, to := range sessions {
		table.Add(id, to)
	}
	var buf bytes.Buffer
	require.NoError(t, writeSnapshot(&buf, tree, table, zxid, nil))
	return buf.Bytes()
}

// logBytes is a log file: header, the entries, and a zero-filled tail.
func logBytes(entries ...[]byte) []byte {
	var e wire.Encoder
	e.Int(logMagic)
	e.Int(fileVersion)
	e.Long(0)
	b := e.Bytes()
	for _, en := range entries {
		b = append(b, en...)
	}
	return append(b, make([]byte, 64)...)
}

// entry encodes a log entry: checksum, length, the txn, 'B'.
func entry(txnBytes []byte) []byte {
	var e wire.Encoder
	e.Long(int64(adler32.Checksum(txnBytes)))
	e.Buffer(txnBytes)
	return append(e.Bytes(), 'B')
}

// txnBytes encodes a TxnHeader followed by the record body.
func txnBytes(session, zxid int64, op wire.Op, body func(e *wire.Encoder)) []byte {
	var e wire.Encoder
	e.Long(session)
	e.Int(1)
	e.Long(zxid)
	e.Long(5000)
	e.Int(int32(op))
	if body != nil {
		body(&e)
	}
	return e.Bytes()
}

func createBody(path string, data []byte, ephemeral bool, parentCVersion int32) func(e *wire.Encoder) {
	return func(e *wire.Encoder) {
		e.String(path)
		e.Buffer(data)
		wire.EncodeACLs(e, wire.OpenACLUnsafe)
		e.Bool(ephemeral)
		e.Int(parentCVersion)
	}
}

func pathBody(path string) func(e *wire.Encoder) { return func(e *wire.Encoder) { e.String(path) } }

// writeDir writes files (name → bytes) into dir/version-2.
func writeDir(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	v2 := filepath.Join(dir, "version-2")
	require.NoError(t, os.MkdirAll(v2, 0o755))
	for name, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(v2, name), b, 0o644))
	}
}

func hexName(prefix string, zxid int64) string { return prefix + "." + strconv.FormatInt(zxid, 16) }

func putInt(b []byte, off int, v int32) { binary.BigEndian.PutUint32(b[off:], uint32(v)) }

// writeTemp writes b to a temporary file and returns its path.
func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "snapshot.1")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}
