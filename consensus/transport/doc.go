// Package transport is a raft.Transport for hashicorp/raft: pipelined,
// batched, and encoded by hand, without reflection.
//
// It owns the Raft peer protocol on a raft.StreamLayer: the connection
// preamble, the frames, the binary encoding of every Raft RPC and
// response, the pool of idle connections per peer, the AppendEntries
// pipelines, and the serving of accepted connections (handing RPCs to
// the Consumer channel, and heartbeats to the heartbeat handler). It
// doesn't own the stream: TLS or SASL, connection tracking and the
// deadline for an accepted connection's first byte are the stream
// layer's. It must not import the rest of zkraft; it depends only on
// hashicorp/raft, go-hclog and the standard library.
//
// # Wire format
//
// The dialer opens a connection with the 5-byte preamble "ZKRT" followed
// by the protocol version (1). Its first byte can't be confused with the
// first byte hashicorp/raft's NetworkTransport sends (an rpcType, 0 to
// 5), so a server of either kind closes a connection from the other at
// once, and this one logs why.
//
// Then both sides send frames:
//
//	uint32 length  big-endian: the bytes after it (type and body), >= 1
//	byte   type    1 AppendEntries, 2 RequestVote, 3 InstallSnapshot,
//	               4 TimeoutNow, 5 RequestPreVote; | 0x80 for the response
//	body           the message's fields, in declaration order
//
// In a body, integers are fixed-width big-endian (uint64; Raft's int
// fields, ProtocolVersion and SnapshotVersion, as int64), a bool is one
// byte (0 or 1, anything else is an error), a byte string is a uint32 of
// its length plus one (0 for nil) followed by its bytes, and a time is
// its Unix seconds (int64) and nanoseconds (uint32). Every message
// starts with its RPCHeader (ProtocolVersion, ID, Addr); the deprecated
// fields (Leader, Candidate, Peers) are encoded too. AppendEntries'
// entries are a uint32 count plus one (0 for nil), then each log entry:
// Index, Term, Type (one byte), AppendedAt, Data, Extensions. A response
// body starts with the error the serving side's consumer gave, as a byte
// string (empty for none); the response follows even then, as with
// NetworkTransport.
//
// An InstallSnapshot request frame is followed by exactly Size raw bytes
// of snapshot, which the serving side hands to its consumer as
// RPC.Reader. Its response ends the connection.
//
// # Decoding hostile input
//
// A frame longer than Config.MaxFrame closes the connection before
// anything is allocated for it. A body is read into a buffer that grows
// with the bytes that arrive (from 64 KiB, doubling), so a length prefix
// is only a claim. Every length and count is checked against the bytes
// left in the body before it is used: a count of entries may not exceed
// what the body could hold at minEntry (37) bytes an entry. So decoding
// a frame of n bytes allocates at most about n for its body (2n in
// garbage while a large one grows) plus, for entries, 104 bytes of
// raft.Log and pointer per 37 bytes of body, and never more for any
// count or length it was told. FuzzDecode checks this.
//
// # Pipelining and ordering
//
// AppendEntriesPipeline returns a pipeline on its own connection: its
// AppendEntries encodes the request into a pending buffer and returns a
// future; a writer goroutine writes whatever is pending in one write; a
// reader goroutine decodes the responses, in order, and delivers the
// futures on the pipeline's Consumer. See pipeline for why no goroutine
// can park forever, including after a rejected AppendEntries, where
// raft v1.7.3's own netPipeline could deadlock.
//
// The serving side decodes the next request of a connection while the
// previous one is being processed, and writes the responses in request
// order, batching those that are ready together. The other RPCs, and
// AppendEntries outside a pipeline, use pooled connections (at most
// MaxPool idle per peer), one RPC at a time; InstallSnapshot, like each
// pipeline, dials a connection of its own.
//
// Raft's log entries keep their Data: a received AppendEntries' body is
// never reused, its byte strings are sub-slices of it. Buffers that are
// reused (request encoding, response bodies) never end up in what Raft
// keeps.
package transport
