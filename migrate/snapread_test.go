package migrate

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
)

// A tree written as a ZooKeeper snapshot reads back node for node, and
// the image rebuilt from it equals the tree (but /zookeeper/config, which
// is reset both ways).
func TestSnapshotRoundTrip(t *testing.T) {
	tree := sampleTree(t)
	b := snapshotBytes(t, tree, map[int64]int32{sess1: 30000, sess2: 4000}, 0x100000010)
	s, err := decodeSnapshot(bytes.NewReader(b), int64(len(b)), "snap", true, nil)
	require.NoError(t, err)
	require.Equal(t, map[int64]int32{sess1: 30000, sess2: 4000}, s.sessions)
	require.NotNil(t, s.digest)
	require.Equal(t, int64(0x100000010), s.digest.zxid)
	require.Equal(t, s.digest.digest, s.tree.digest(), "the digest written is the tree's")
	require.Equal(t, map[string]struct{}{"/a/eph": {}}, s.tree.ephemerals[sess1])
	require.Len(t, s.tree.ephemerals, 1, "containers and TTL nodes are no session's")

	im := &Image{tree: s.tree, Sessions: s.sessions}
	back, err := im.Tree(datatree.Config{ExtendedTypesEnabled: true}, nil)
	require.NoError(t, err)
	require.Equal(t, walk(t, tree), walk(t, back))
	ok, err := validSnapshotEnd(writeTemp(t, b))
	require.NoError(t, err)
	require.True(t, ok)
}

func walk(t *testing.T, tree *datatree.Tree) map[string]datatree.StoredNode {
	out := map[string]datatree.StoredNode{}
	require.NoError(t, tree.WalkStored(func(p string, sn datatree.StoredNode) error {
		out[p] = sn
		return nil
	}))
	return out
}

// Damage is refused with the file, the offset and what is wrong; an
// unknown version or magic is ErrFormat.
func TestSnapshotDamage(t *testing.T) {
	good := snapshotBytes(t, sampleTree(t), map[int64]int32{sess1: 30000}, 0x100000010)
	decode := func(b []byte) error {
		_, err := decodeSnapshot(bytes.NewReader(b), int64(len(b)), "snap", true, nil)
		return err
	}
	require.NoError(t, decode(good))

	flipped := bytes.Clone(good)
	i := bytes.Index(flipped, []byte("/ttl")) + 20
	flipped[i] ^= 1
	err := decode(flipped)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "snap at offset ")
	require.ErrorContains(t, err, "Adler-32 checksum mismatch")

	for _, cut := range []int{3, 16, 40, len(good) / 2, len(good) - 30} {
		err := decode(good[:cut])
		require.ErrorIs(t, err, ErrCorrupt, "cut at %d", cut)
		ok, verr := validSnapshotEnd(writeTemp(t, good[:cut]))
		require.NoError(t, verr)
		require.False(t, ok, "a snapshot cut at %d has no end mark", cut)
	}

	v3 := bytes.Clone(good)
	putInt(v3, 4, 3)
	err = decode(v3)
	require.ErrorIs(t, err, ErrFormat)
	require.ErrorContains(t, err, "snapshot format version 3")

	log := logBytes()
	require.ErrorIs(t, decode(log), ErrFormat)

	// A node before its parent: "/a" renamed "/q" orphans "/a/eph".
	orphan := bytes.Clone(good)
	j := bytes.Index(orphan, []byte("\x00\x00\x00\x02/a"))
	orphan[j+5] = 'q'
	err = decode(orphan)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "comes before its parent")
	require.False(t, errors.Is(err, ErrFormat))
}
