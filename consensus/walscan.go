package consensus

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/hashicorp/raft"
	wal "github.com/hashicorp/raft-wal"
)

// This file reads raft-wal v0.4 segment files on its own, to check what
// raft-wal itself does not: raft-wal checks a CRC only over the last
// batch of its newest segment when it opens, reads sealed segments through
// their index unchecked, and panics or silently stops at some framing
// damage. The format (raft-wal's segment/format.go):
//
//	file header (32 bytes): magic 0x58eb6b0d (LE uint32), 3 reserved
//	    bytes, version 0, then base index, segment id, codec (LE uint64)
//	frames, each an 8-byte header then a payload padded to 8 bytes:
//	    byte type (1 entry, 2 index, 3 commit), 3 reserved zero bytes,
//	    LE uint32 payload length (a commit frame has no payload; the four
//	    bytes are the CRC-32C of every byte since the previous commit
//	    frame, or since the start of the file for the first)
//	zeros after the last frame (files are preallocated)
const (
	walMagic       = 0x58eb6b0d
	walHeaderLen   = 32
	walFrameHdrLen = 8
	walMaxEntry    = 64 << 20
	frameEntry     = 1
	frameIndex     = 2
	frameCommit    = 3
)

// segmentHeader is a segment file's header.
type segmentHeader struct{ base, id, codec uint64 }

// segmentScan is what scanning one segment found.
type segmentScan struct {
	header    segmentHeader
	headerOK  bool
	entries   uint64 // committed entries, from the base index
	sealed    bool   // an index frame was committed
	end       int64  // offset just past the last valid commit frame (0: none)
	badAt     int64  // where reading stopped on something not a frame; -1 if it ended cleanly
	badWhy    string
	uncommit  int   // entry frames read after the last valid commit
	entryErr  error // the first committed entry failing its checksum
	entryErrO int64 // and its frame's offset
}

// scanSegment reads a segment from r, checking every commit's CRC and
// every committed entry's zkraft checksum (entries below sumFrom may have
// none). It stops at zeros, at the end, or at the first thing that is not
// a well-formed frame or whose commit CRC fails, and says where.
//
// fileSize bounds what a frame length may claim, so damage never makes it
// allocate more than the file holds.
// base is the segment's first index as wal-meta.db records it; 0 takes
// the file header's word for it.
func scanSegment(r io.Reader, fileSize int64, base, sumFrom uint64) segmentScan {
	br := bufio.NewReaderSize(r, int(max(min(fileSize, 64<<10), 16)))
	s := segmentScan{badAt: -1}
	head := make([]byte, walHeaderLen)
	n, _ := io.ReadFull(br, head)
	if n < walHeaderLen {
		if !isZero(head[:n]) {
			s.badAt, s.badWhy = 0, "file header cut short"
		}
		return s
	}
	if binary.LittleEndian.Uint32(head[:4]) == walMagic && head[7] == 0 && bytes.Equal(head[4:7], []byte{0, 0, 0}) {
		s.headerOK = true
		s.header = segmentHeader{binary.LittleEndian.Uint64(head[8:]), binary.LittleEndian.Uint64(head[16:]), binary.LittleEndian.Uint64(head[24:])}
	}
	if base == 0 {
		base = s.header.base
	}
	sum := crc32.Update(0, castagnoli, head)
	off := int64(walHeaderLen)
	var pending uint64 // entries in the current batch
	var sealing bool
	var batchErr error
	var batchErrOff int64
	hdr := make([]byte, walFrameHdrLen)
	var payload []byte
	codec := &wal.BinaryCodec{}
	for {
		n, _ := io.ReadFull(br, hdr)
		if n == 0 || isZero(hdr[:n]) {
			break
		}
		if n < walFrameHdrLen {
			s.badAt, s.badWhy = off, "frame header cut short"
			break
		}
		typ, reserved, val := hdr[0], hdr[1:4], binary.LittleEndian.Uint32(hdr[4:])
		if !isZero(reserved) || typ < frameEntry || typ > frameCommit {
			s.badAt, s.badWhy = off, fmt.Sprintf("not a frame header (type %d, reserved %x)", typ, reserved)
			break
		}
		if typ == frameCommit {
			if val != sum {
				s.badAt, s.badWhy = off, fmt.Sprintf("commit CRC mismatch over the batch from offset %d (stored %08x, computed %08x)", s.end, val, sum)
				if batchErr != nil { // the entry the damage is in
					s.badAt, s.badWhy = batchErrOff, batchErr.Error()+", and its batch's commit CRC fails"
				}
				break
			}
			if batchErr != nil && s.entryErr == nil {
				s.entryErr, s.entryErrO = batchErr, batchErrOff
			}
			s.entries += pending
			s.sealed = s.sealed || sealing
			pending, sealing, batchErr, sum = 0, false, nil, 0
			off += walFrameHdrLen
			s.end = off
			continue
		}
		if val > walMaxEntry {
			s.badAt, s.badWhy = off, fmt.Sprintf("frame length %d over raft-wal's limit", val)
			break
		}
		size := int(val) + int((walFrameHdrLen-val%walFrameHdrLen)%walFrameHdrLen)
		if off+walFrameHdrLen+int64(size) > fileSize {
			s.badAt, s.badWhy = off, "frame cut short by the end of the file"
			break
		}
		if cap(payload) < size {
			payload = make([]byte, size)
		}
		payload = payload[:size]
		n, _ = io.ReadFull(br, payload)
		if n < size {
			s.badAt, s.badWhy = off, "frame cut short by the end of the file"
			break
		}
		sum = crc32.Update(crc32.Update(sum, castagnoli, hdr), castagnoli, payload)
		if typ == frameIndex {
			sealing = true
		} else if batchErr == nil {
			index := base + s.entries + pending
			if err := checkFrameEntry(codec, payload[:val], index, sumFrom); err != nil {
				batchErr, batchErrOff = fmt.Errorf("log entry %d: %w", index, err), off
			}
		}
		if typ == frameEntry {
			pending++
		}
		off += walFrameHdrLen + int64(size)
	}
	s.uncommit = int(pending)
	return s
}

// checkFrameEntry decodes one entry frame and checks its index and its
// zkraft checksum.
func checkFrameEntry(codec *wal.BinaryCodec, data []byte, index, sumFrom uint64) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("entry does not decode: %v", p)
		}
	}()
	var l raft.Log
	if err := codec.Decode(data, &l); err != nil {
		return fmt.Errorf("entry does not decode: %v", err)
	}
	if l.Index != index {
		return fmt.Errorf("entry says index %d where %d belongs", l.Index, index)
	}
	return openEntry(&l, index < sumFrom)
}

// laterCommit reports whether anything after the damage at badAt still
// holds a well-formed, CRC-valid batch: then the damage is not a torn
// tail left by a crash (which can only hit the last batch written). It
// tries every 8-byte-aligned commit frame header after badAt as the end
// of a batch and parses on from there.
func laterCommit(data []byte, badAt int64) bool {
	for q := badAt; q+walFrameHdrLen <= int64(len(data)); q += walFrameHdrLen {
		h := data[q : q+walFrameHdrLen]
		if h[0] != frameCommit || !isZero(h[1:4]) {
			continue
		}
		s := scanBatches(data[q+walFrameHdrLen:])
		if s > 0 {
			return true
		}
	}
	return false
}

// scanBatches parses data as frames starting right after a commit and
// returns how many CRC-valid non-empty batches it finds before the first
// bad one.
func scanBatches(data []byte) int {
	var sum uint32
	off, frames, batches := 0, 0, 0
	for off+walFrameHdrLen <= len(data) {
		h := data[off : off+walFrameHdrLen]
		if isZero(h) || !isZero(h[1:4]) || h[0] < frameEntry || h[0] > frameCommit {
			return batches
		}
		val := binary.LittleEndian.Uint32(h[4:])
		if h[0] == frameCommit {
			if val != sum || frames == 0 {
				return batches
			}
			batches++
			sum, frames = 0, 0
			off += walFrameHdrLen
			continue
		}
		size := int(val) + int((walFrameHdrLen-val%walFrameHdrLen)%walFrameHdrLen)
		if val > walMaxEntry || off+walFrameHdrLen+size > len(data) {
			return batches
		}
		sum = crc32.Update(sum, castagnoli, data[off:off+walFrameHdrLen+size])
		frames++
		off += walFrameHdrLen + size
	}
	return batches
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// lastNonZero returns base plus the offset just past b's last non-zero
// byte, or 0 when b is all zeros.
func lastNonZero(b []byte, base int64) int64 {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != 0 {
			return base + int64(i) + 1
		}
	}
	return 0
}
