package wire

// A multi of a hundred creates, the shape of a bulk load, made four small
// allocations per op while it was decoded: the record, its ACL vector, its
// path and a copy of its data. A restart replays millions of such ops from
// the log, and at a large heap every allocation costs more than its bytes
// (fresh spans, their heap bits, the collector's work). A Decoder hands out
// multi records and ACL vectors from slabs instead, and a log entry's
// decoder can leave buffers in the entry (AliasBuffers).

// slabMax is the most elements a slab chunk holds.
const slabMax = 128

// slab hands out runs of T from chunks. The first chunk holds exactly what
// the first request asked for, so a frame that decodes one record costs
// what it did; later chunks double from 8 up to slabMax elements, so a
// frame of n records costs about log2(n) allocations rather than n. A run
// handed out is never moved nor handed out again, and its capacity ends
// with it, so appending to it copies rather than running into its
// neighbour. A chunk stays alive while any of its runs is referenced, which
// is why slabs belong to one Decoder, that is one frame or one log entry.
type slab[T any] struct {
	free  []T // the current chunk's unused part
	chunk int // size of the current chunk; 0 before the first
}

// take returns a run of n zero elements with capacity n, never nil. Runs
// longer than slabMax are allocated on their own.
func (s *slab[T]) take(n int) []T {
	if n == 0 || n > slabMax {
		return make([]T, n)
	}
	if len(s.free) < n {
		size := n
		if s.chunk > 0 {
			size = max(n, min(max(2*s.chunk, 8), slabMax))
		}
		s.free, s.chunk = make([]T, size), size
	}
	run := s.free[:n:n]
	s.free = s.free[n:]
	return run
}
