package wire

import "io"

// frameChunk is the most ReadFrame allocates for a payload before that
// many bytes have arrived. A length prefix is only a claim: a peer that
// announces a frame of jute.maxbuffer (or the 64 MiB of the forwarding
// channel) and then sends nothing must not make the reader hold that much
// memory, or a few hundred such connections exhaust the heap.
const frameChunk = 64 << 10

// readPayload reads n payload bytes into buf, reusing it when its capacity
// suffices. A larger payload is read into a buffer that starts at
// frameChunk and doubles as it fills, so memory follows the bytes received
// rather than the length claimed; a complete large frame costs about one
// extra copy of itself.
func readPayload(r io.Reader, n int, buf []byte) ([]byte, error) {
	if cap(buf) >= n {
		buf = buf[:n]
		_, err := io.ReadFull(r, buf)
		return buf, err
	}
	if n <= frameChunk {
		buf = make([]byte, n)
		_, err := io.ReadFull(r, buf)
		return buf, err
	}
	buf = make([]byte, 0, frameChunk)
	for len(buf) < n {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*cap(buf), n))
			copy(grown, buf)
			buf = grown
		}
		m, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err != nil {
			if err == io.EOF && len(buf) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}
