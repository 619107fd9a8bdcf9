package integration

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/linearizable"
)

// Unit tests of the soak's checkers, cheap enough for every `make test`
// (the soak itself runs only with ZKRAFT_SOAK).

// TestSoakSegmentModel shows that a segment starting from an init
// operation is checked from that state, and that a carried-over operation
// of unknown outcome may take effect in the segment or not at all.
func TestSoakSegmentModel(t *testing.T) {
	m := soakLinModel.ToModel()
	type (
		linInput  = linearizable.Input
		linOutput = linearizable.Output
	)
	op := func(in linInput, call int64, out linOutput, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: 0, Input: in, Call: call, Output: out, Return: ret}
	}
	start := initOp("/k", linOutput{Code: "ok", Value: "v3", Version: 3})
	read := func(value string, version int32) porcupine.Operation {
		return op(linInput{Op: "get", Key: "/k"}, 10, linOutput{Code: "ok", Value: value, Version: version}, 11)
	}
	require.Equal(t, porcupine.Ok, porcupine.CheckOperationsTimeout(m, []porcupine.Operation{start, read("v3", 3)}, time.Second))
	require.Equal(t, porcupine.Illegal, porcupine.CheckOperationsTimeout(m, []porcupine.Operation{start, read("v2", 2)}, time.Second),
		"a read of a state older than the segment's start")
	absent := initOp("/k", linOutput{Code: "nonode"})
	require.Equal(t, porcupine.Illegal, porcupine.CheckOperationsTimeout(m, []porcupine.Operation{absent, read("v3", 3)}, time.Second))

	carried := op(linInput{Op: "set", Key: "/k", Value: "late", Version: 3}, 0, linOutput{Code: linearizable.Unknown}, 1<<62)
	for _, h := range [][]porcupine.Operation{
		{start, carried, read("late", 4)}, // it took effect in this segment
		{start, carried, read("v3", 3)},   // or not (yet)
	} {
		require.Equal(t, porcupine.Ok, porcupine.CheckOperationsTimeout(m, h, time.Second))
	}
	// Init operations of different keys do not interfere.
	other := initOp("/j", linOutput{Code: "nonode"})
	require.Equal(t, porcupine.Ok, porcupine.CheckOperationsTimeout(m, []porcupine.Operation{start, other, read("v3", 3)}, time.Second))
}

func TestSoakLatencyHistogram(t *testing.T) {
	var h latHist
	require.Zero(t, h.quantile(0.5))
	for i := 1; i <= 100; i++ {
		h.add(time.Duration(i) * time.Millisecond)
	}
	require.InEpsilon(t, float64(50*time.Millisecond), float64(h.quantile(0.5)), 0.06)
	require.InEpsilon(t, float64(99*time.Millisecond), float64(h.quantile(0.99)), 0.06)
	require.Equal(t, 100*time.Millisecond, h.quantile(1))
	h.add(time.Nanosecond) // below the first bucket: counted there
	h.add(100 * time.Hour) // above the last: counted there
	require.Equal(t, 100*time.Hour, h.quantile(1))
}

func TestSoakSteadiness(t *testing.T) {
	samples := func(heapMiB []uint64, gor []int) []resSample {
		out := make([]resSample, len(heapMiB))
		for i := range out {
			out[i] = resSample{heapInuse: heapMiB[i] << 20, goroutines: gor[i]}
		}
		return out
	}
	// The first sample (warm-up) is left out; noise within the bounds passes.
	require.Empty(t, steadiness(samples(
		[]uint64{10, 50, 60, 55, 52, 70, 58, 61}, []int{50, 120, 140, 118, 125, 139, 121, 130})))
	// Steady growth of the heap or of goroutines does not.
	require.Len(t, steadiness(samples(
		[]uint64{50, 50, 60, 70, 80, 90, 100, 110}, []int{120, 120, 120, 120, 120, 120, 120, 120})), 1)
	require.Len(t, steadiness(samples(
		[]uint64{50, 50, 50, 50, 50, 50, 50, 50}, []int{120, 120, 150, 180, 210, 240, 270, 300})), 1)
	require.Empty(t, steadiness(samples([]uint64{1, 500}, []int{1, 500})), "too few samples to judge")
}
