// Package wire owns the jute binary encoding of the ZooKeeper 3.8 client
// protocol.
//
// It provides:
//
//   - Encoder and Decoder for jute primitives (int, long, boolean, buffer,
//     ustring, vector). The Decoder's first error is sticky, and every
//     length or count it reads is checked against the bytes that remain, so
//     hostile input cannot make it allocate more than the frame it was given.
//   - One Go record type per request and response body of every opcode
//     (ConnectRequest, CreateRequest, MultiRequest, MultiResponse, ...), each
//     with Encode and Decode methods, and RequestForOp to pick the request
//     record for an opcode.
//   - ReadFrame, the length-prefixed frame reader with a size limit
//     (jute.maxbuffer), AppendFrame/AppendReply to build outgoing frames, and
//     FourLetterWord to recognise four-letter-word commands.
//   - The opcode, error-code, event-type, permission and flag constants, and
//     CodeOf, the single place that maps a Go error to the code sent on the
//     wire.
//
// The package is pure encoding: it never touches sockets (beyond reading
// from an io.Reader handed to it), sessions, watches or the data tree.
package wire
