package session

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFirstIDFormat(t *testing.T) {
	now := time.UnixMilli(0x0123456789AB) // 41 significant bits
	id := FirstID(5, now)
	// (ms << 24) >>> 8: the low 40 bits of ms land in bits 16..55.
	require.Equal(t, int64(0x05_23456789AB_0000), id)
	require.Equal(t, int64(5), id>>56)
	require.Zero(t, id&0xffff)
}

func TestFirstIDUnsignedShift(t *testing.T) {
	// Bit 39 of ms ends up in bit 55; an arithmetic shift would smear the
	// sign into the server id byte (ZOOKEEPER-1622).
	now := time.UnixMilli(0x80_0000_0000)
	id := FirstID(1, now)
	require.Equal(t, int64(0x01_8000000000_0000), id)
}

func TestFirstIDNeverMinInt64(t *testing.T) {
	id := FirstID(-128, time.UnixMilli(0)) // 0x80 << 56 == MinInt64
	require.Equal(t, int64(math.MinInt64+1), id)
}

func TestIDGeneratorSequence(t *testing.T) {
	now := time.UnixMilli(1700000000000)
	g := NewIDGenerator(3, now)
	first := FirstID(3, now)
	require.Equal(t, first, g.Next())
	require.Equal(t, first+1, g.Next())
	require.Equal(t, first+2, g.Next())
}

func TestIDGeneratorSkipsMinInt64(t *testing.T) {
	g := &IDGenerator{}
	g.next.Store(math.MaxInt64)
	require.Equal(t, int64(math.MaxInt64), g.Next())
	require.Equal(t, int64(math.MinInt64+1), g.Next())
}

func TestIDGeneratorConcurrent(t *testing.T) {
	g := NewIDGenerator(1, time.UnixMilli(1700000000000))
	const workers, each = 8, 500
	ids := make(chan int64, workers*each)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				ids <- g.Next()
			}
		})
	}
	wg.Wait()
	close(ids)
	seen := make(map[int64]bool)
	for id := range ids {
		require.False(t, seen[id], "duplicate id %x", id)
		seen[id] = true
	}
	require.Len(t, seen, workers*each)
}

func TestNegotiate(t *testing.T) {
	tests := []struct {
		req, min, max, want int32
	}{
		{req: 30000, min: 4000, max: 40000, want: 30000},
		{req: 1000, min: 4000, max: 40000, want: 4000},
		{req: 0, min: 4000, max: 40000, want: 4000},
		{req: -5, min: 4000, max: 40000, want: 4000},
		{req: 100000, min: 4000, max: 40000, want: 40000},
		{req: 4000, min: 4000, max: 40000, want: 4000},
		{req: 40000, min: 4000, max: 40000, want: 40000},
		{req: 10000, min: 50000, max: 40000, want: 40000}, // min > max: max wins
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, Negotiate(tc.req, tc.min, tc.max), "%+v", tc)
	}
}
