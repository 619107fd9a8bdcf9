package migrate

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// TestImportMillionZnodes times the import of a ZooKeeper data directory
// of 1M znodes (a snapshot written by the exporter, whose output real
// ZooKeeper loads in TestRoundTripWithZooKeeper, and a log after it). It
// runs only with ZKRAFT_MIGRATE_1M=1:
//
//	ZKRAFT_MIGRATE_1M=1 go test ./migrate -run TestImportMillionZnodes -v
func TestImportMillionZnodes(t *testing.T) {
	if os.Getenv("ZKRAFT_MIGRATE_1M") == "" {
		t.Skip("set ZKRAFT_MIGRATE_1M=1 to time the import of 1M znodes")
	}
	const parents, children = 1000, 1000
	b := datatree.NewBuilder(datatree.Config{}, datatree.StoredNode{Data: []byte{}, ACL: wire.OpenACLUnsafe, Cversion: parents})
	zxid := int64(0x500000000)
	for p := 0; p < parents; p++ {
		zxid++
		pp := fmt.Sprintf("/p%04d", p)
		require.NoError(t, b.Add(pp, datatree.StoredNode{Data: []byte("parent"), ACL: wire.OpenACLUnsafe, Czxid: zxid, Mzxid: zxid, Pzxid: zxid + children, Cversion: children}))
		for c := 0; c < children; c++ {
			zxid++
			data := []byte(strings.Repeat("x", (p*children+c)%100))
			require.NoError(t, b.Add(fmt.Sprintf("%s/n%04d", pp, c), datatree.StoredNode{Data: data, ACL: wire.OpenACLUnsafe, Czxid: zxid, Mzxid: zxid, Pzxid: zxid, Ctime: 1, Mtime: 1}))
		}
	}
	tree := b.Finish()
	dir := t.TempDir()
	v2 := filepath.Join(dir, "version-2")
	require.NoError(t, os.MkdirAll(v2, 0o755))
	f, err := os.Create(filepath.Join(v2, hexName("snapshot", zxid)))
	require.NoError(t, err)
	require.NoError(t, writeSnapshot(f, tree, session.NewTable(), zxid, nil))
	require.NoError(t, f.Close())
	var entries [][]byte
	for i := int64(1); i <= 1000; i++ {
		entries = append(entries, entry(txnBytes(sess1, zxid+i, wire.OpCreate, createBody(fmt.Sprintf("/p0000/late%04d", i), []byte("late"), false, int32(children+i)))))
	}
	require.NoError(t, os.WriteFile(filepath.Join(v2, hexName("log", zxid+1)), logBytes(entries...), 0o644))
	fi, _ := os.Stat(filepath.Join(v2, hexName("snapshot", zxid)))
	tree = nil
	runtime.GC()

	start := time.Now()
	im, err := Load(Source{DataDir: dir, Progress: os.Stderr})
	require.NoError(t, err)
	loaded := time.Since(start)
	require.Equal(t, 1+parents*(children+1)+3+1000, im.Nodes()) // and /zookeeper, its quota and config
	target := t.TempDir()
	require.NoError(t, Import(im, Target{Storage: consensus.Storage{DataDir: target}, Progress: os.Stderr}))
	total := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("1M znodes (snapshot %d MB + a log of 1000 txns): read and replayed in %v, imported (tree built, zkraft snapshot written) in %v total; heap in use %d MB, %d MB obtained from the OS",
		fi.Size()>>20, loaded.Round(time.Millisecond), total.Round(time.Millisecond), ms.HeapInuse>>20, ms.Sys>>20)
}
