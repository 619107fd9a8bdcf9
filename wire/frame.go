package wire

import (
	"encoding/binary"
	"errors"
	"io"
)

// DefaultMaxBuffer is ZooKeeper's default jute.maxbuffer (0xfffff =
// 1048575 bytes), the largest frame payload accepted by default.
const DefaultMaxBuffer = 0xfffff

// ErrFrameTooLarge is returned by ReadFrame for a length prefix above the
// limit. ZooKeeper closes the connection without a reply in that case.
var ErrFrameTooLarge = errors.New("wire: frame too large")

// ErrNegativeLength is returned by ReadFrame for a negative length prefix.
// ZooKeeper closes the connection without a reply in that case.
var ErrNegativeLength = errors.New("wire: negative frame length")

// ReadFrame reads one frame from r: a 4-byte big-endian length followed by
// that many payload bytes, and returns the payload. A length below zero
// fails with ErrNegativeLength and one above max with ErrFrameTooLarge,
// before any payload is read; max <= 0 means DefaultMaxBuffer. buf is reused
// for the payload when its capacity suffices, so the result aliases buf and
// is only valid until the next call with the same buf. A clean end of stream
// before the length yields io.EOF; a stream cut inside the frame yields
// io.ErrUnexpectedEOF; other read errors are returned as they are.
func ReadFrame(r io.Reader, max int, buf []byte) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxBuffer
	}
	var hdr []byte
	if cap(buf) >= 4 {
		hdr = buf[:4]
	} else {
		hdr = make([]byte, 4)
	}
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(hdr))
	if n < 0 {
		return nil, ErrNegativeLength
	}
	if int64(n) > int64(max) {
		return nil, ErrFrameTooLarge
	}
	buf, err := readPayload(r, int(n), buf)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// AppendFrame appends one frame holding the concatenated encodings of recs
// to dst and returns the extended slice: a 4-byte length placeholder is
// appended, the records are encoded after it, and the length is patched in.
// Nil records are skipped.
func AppendFrame(dst []byte, recs ...Record) []byte {
	start := len(dst)
	e := Encoder{buf: append(dst, 0, 0, 0, 0)}
	for _, rec := range recs {
		if rec != nil {
			rec.Encode(&e)
		}
	}
	out := e.Bytes()
	binary.BigEndian.PutUint32(out[start:], uint32(len(out)-start-4))
	return out
}

// AppendReply appends a reply frame, hdr followed by body, to dst. body may
// be nil for header-only replies. ZooKeeper sends a body only when hdr.Err
// is CodeOK; that choice is the caller's, this function encodes what it is
// given.
func AppendReply(dst []byte, hdr *ReplyHeader, body Record) []byte {
	if body == nil {
		return AppendFrame(dst, hdr)
	}
	return AppendFrame(dst, hdr, body)
}

// fourLetterWords are the commands ZooKeeper accepts as the first four bytes
// of a connection instead of a length prefix.
var fourLetterWords = map[string]bool{
	"ruok": true, "srvr": true, "stat": true, "conf": true, "cons": true,
	"crst": true, "srst": true, "dump": true, "envi": true, "mntr": true,
	"wchs": true, "wchc": true, "wchp": true, "dirs": true, "isro": true,
	"gtmk": true, "stmk": true, "hash": true,
}

// FourLetterWord reports whether the first four bytes of a connection (read
// as the length prefix of what would be a ConnectRequest) spell one of the
// four-letter-word commands, and returns the word. Fewer than four bytes
// never match; bytes beyond the fourth are ignored. When the bytes are not a
// command, the caller can continue with
// ReadFrame(io.MultiReader(bytes.NewReader(first4), conn), ...).
func FourLetterWord(first4 []byte) (string, bool) {
	if len(first4) < 4 {
		return "", false
	}
	if !fourLetterWords[string(first4[:4])] {
		return "", false
	}
	return string(first4[:4]), true
}
