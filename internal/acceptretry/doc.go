// Package acceptretry keeps a server's accept loops running through
// failed accepts. Every listener a zkraft process serves on (the client
// ports, the Raft peer port, the forwarding (election) port, the
// AdminServer, /metrics and the debug port) is wrapped by Wrap, whose
// Accept waits out a failure instead of returning it: a process that
// runs out of descriptors (EMFILE, ENFILE), of kernel buffers (ENOBUFS,
// ENOMEM), or whose pending connection was aborted before it was
// accepted, accepts again once the condition passes. Before, one EMFILE
// ended the forwarding port's loop for good, and a follower that started
// afterwards never synchronised with that leader.
//
// The wait starts at 5 ms and doubles up to 1 s, as net/http's Serve
// does. One failure episode, however many retries it takes, logs one
// line when it starts (WARN for the temporary errors, ERROR for an
// unexpected one, which is retried as well) and one INFO line when
// accepting works again: once accepts have worked for Quiet (5 s) without
// a failure, so a process hovering at its descriptor limit, whose accepts
// work and fail in turn, logs one episode rather than a pair of lines per
// closed connection. Accept returns an error only once the listener
// is closed, so a loop that stops on any error stops only then, and
// net/http's Serve, which stops on errors that are not temporary, never
// sees one.
//
// A wrapper between the kernel's listener and this one must pass an
// accept error through (not turn it into one that looks like a close)
// and must not return an error for one connection's failed handshake:
// it closes that connection and accepts the next.
package acceptretry
