package consensus

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
	wal "github.com/hashicorp/raft-wal"
	"github.com/hashicorp/raft-wal/metadb"
)

// BenchmarkEntrySum is the checksum's cost per entry of issue 6's size
// (about 100 bytes): seal on append, open on read.
func BenchmarkEntrySum(b *testing.B) {
	l := raft.Log{Index: 12345, Term: 3, Type: raft.LogCommand, Data: bytes.Repeat([]byte{7}, 100)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s := sealEntry(&l)
		if err := openEntry(&s, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckWAL is the check a durable start runs over a full 64 MiB
// raft-wal segment of 1 KiB entries (plus the sealed part of the next).
func BenchmarkCheckWAL(b *testing.B) {
	dir := b.TempDir()
	meta := &metadb.BoltMetaDB{}
	w, err := wal.Open(dir, wal.WithMetaStore(meta))
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat([]byte{0xab}, 1024)
	const perBatch, total = 1000, 66000
	for i := 0; i < total; i += perBatch {
		batch := make([]*raft.Log, perBatch)
		for j := range batch {
			l := sealEntry(&raft.Log{Index: uint64(i + j + 1), Term: 1, Type: raft.LogCommand, Data: data})
			batch[j] = &l
		}
		if err := w.StoreLogs(batch); err != nil {
			b.Fatal(err)
		}
	}
	w.SetUint64(sumFromKey, 1)
	w.Close()
	meta.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "*.wal"))
	var size int64
	for _, s := range segs {
		fi, _ := os.Stat(s)
		size += fi.Size()
	}
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := checkWAL(dir, false, false); err != nil {
			b.Fatal(err)
		}
	}
}
