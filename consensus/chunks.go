package consensus

import "io"

// chunkSize is the size of one chunk of a chunkBuffer.
const chunkSize = 256 << 10

// chunkBuffer is an io.Writer that keeps what it is given in fixed-size
// chunks. Unlike a growing slice (wire.Encoder, bytes.Buffer), it never
// copies what it already holds into a larger array, so holding n bytes
// costs n bytes (plus at most one partly filled chunk) at every moment,
// not up to twice that while it grows; and the chunks can be released one
// by one as they are consumed.
type chunkBuffer struct {
	chunks [][]byte
	size   int64
}

// Write implements io.Writer; it never fails.
func (b *chunkBuffer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(b.chunks) == 0 || len(b.chunks[len(b.chunks)-1]) == chunkSize {
			b.chunks = append(b.chunks, make([]byte, 0, chunkSize))
		}
		last := &b.chunks[len(b.chunks)-1]
		k := min(len(p), chunkSize-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
	b.size += int64(n)
	return n, nil
}

// drainTo writes every chunk to w in order and forgets each once written,
// so its memory can be reclaimed while the rest is still being written.
// The buffer is empty afterwards, even on error.
func (b *chunkBuffer) drainTo(w io.Writer) error {
	defer b.reset()
	for i, c := range b.chunks {
		b.chunks[i] = nil
		if _, err := w.Write(c); err != nil {
			return err
		}
	}
	return nil
}

func (b *chunkBuffer) reset() { b.chunks, b.size = nil, 0 }

// reader returns a reader over the buffer's contents, which must not
// change while it is read.
func (b *chunkBuffer) reader() io.Reader { return &chunkReader{chunks: b.chunks} }

// consume returns a reader over the buffer's contents that forgets each
// chunk once read, so its memory can be reclaimed while the rest is read;
// the buffer is empty afterwards.
func (b *chunkBuffer) consume() io.Reader {
	r := &chunkReader{chunks: b.chunks, release: true}
	b.reset()
	return r
}

// chunkReader reads a sequence of chunks; with release it drops each
// chunk read.
type chunkReader struct {
	chunks  [][]byte
	off     int
	release bool
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.chunks) > 0 && r.off == len(r.chunks[0]) {
		if r.release {
			r.chunks[0] = nil
		}
		r.chunks, r.off = r.chunks[1:], 0
	}
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0][r.off:])
	r.off += n
	return n, nil
}
