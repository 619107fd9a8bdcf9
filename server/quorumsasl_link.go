package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/zkraft/zkraft/auth/digestmd5"
	"github.com/zkraft/zkraft/auth/sasl"
)

// How two servers authenticate a link, D the server that dialled it and A
// the one that accepted it. Raft's leader dials its followers, so unlike
// ZAB's (where the learner dials the leader) a link says nothing about who
// follows whom: both ends are ZooKeeper's learner and server in turn.
//
//  1. D with learnerRequire proves its QuorumLearner user to A (the
//     learner exchange); D without it sends nothing: a plain link.
//  2. A reads the first byte. Not the packet magic: a plain link, refused
//     when A has serverRequire, else handed on with that byte replayed.
//  3. A checks D's proof against its QuorumServer users. On failure A
//     answers ERROR, and drops the link when it has serverRequire, or keeps
//     it with a warning (then D, which asked for SASL, drops it).
//  4. Only after a successful step 3, both ends speaking this protocol: A
//     with learnerRequire proves its own user to D in the same way, and D
//     checks it as A did in step 3; A without it answers NONE, which D
//     accepts unless it has serverRequire.
//
// Step 4 is what keeps a server whose QuorumLearner password is wrong out
// of the ensemble: the leader dials it, so without step 4 it would follow
// by accepting the leader's links alone.
//
// Every message is a packet, modelled on ZooKeeper's QuorumAuthPacket:
// the 8-byte magic, a big-endian int32 status, an int32 token length (-1:
// no token) and the token. A plain link never starts with the magic's
// first byte: Raft's first byte is its RPC type (0 to 4), the forwarding
// channel's is the top byte of a frame length under 64 MiB (0 to 4).

// quorumAuthMagic opens every packet.
var quorumAuthMagic = [8]byte{'Z', 'K', 'Q', 'S', 'A', 'S', 'L', 1}

// Packet statuses: ZooKeeper's three, and qaNone (step 4 without
// learnerRequire).
const (
	qaInProgress int32 = 0
	qaSuccess    int32 = 1
	qaError      int32 = -1
	qaNone       int32 = 2
)

const (
	qaMaxToken  = 16 << 10
	qaMaxRounds = 5 // ZooKeeper's SaslQuorumAuthServer.MAX_RETRIES
)

// Errors of a link's authentication.
var (
	errQuorumAuthPacket  = errors.New("malformed quorum authentication packet")
	errQuorumAuthRefused = errors.New("the peer refused this server's credentials (QuorumLearner section)")
	errQuorumAuthRounds  = errors.New("quorum authentication did not finish within its rounds")
	errQuorumAuthProof   = errors.New("the peer reported success without proving it knows the password")
	errQuorumNoAnswer    = errors.New("no answer to quorum authentication (is quorum.auth.enableSasl=true on the peer?)")
	errPeerNoAuth        = errors.New("the peer did not authenticate, and quorum.auth.serverRequireSasl is true")
	// errLinkKept marks a failed check whose link is kept anyway.
	errLinkKept = errors.New("link kept: quorum.auth.serverRequireSasl=false")
)

// qaPacket is one authentication packet (status and token; nil: none).
type qaPacket struct {
	status int32
	token  []byte
}

func writeQAPacket(w io.Writer, status int32, token []byte) error {
	b := make([]byte, 0, len(quorumAuthMagic)+8+len(token))
	b = append(b, quorumAuthMagic[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(status))
	if token == nil {
		b = binary.BigEndian.AppendUint32(b, 0xffffffff)
	} else {
		b = binary.BigEndian.AppendUint32(b, uint32(len(token)))
		b = append(b, token...)
	}
	_, err := w.Write(b)
	return err
}

// readQAPacket reads a packet with its magic. It reads exactly the
// packet's bytes: what the peer sends after it is the application's.
func readQAPacket(r io.Reader) (qaPacket, error) {
	var magic [len(quorumAuthMagic)]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return qaPacket{}, err
	}
	if magic != quorumAuthMagic {
		return qaPacket{}, fmt.Errorf("%w: bad magic", errQuorumAuthPacket)
	}
	return readQABody(r)
}

// readQABody reads the rest of a packet whose magic was read.
func readQABody(r io.Reader) (qaPacket, error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return qaPacket{}, err
	}
	p := qaPacket{status: int32(binary.BigEndian.Uint32(h[:4]))}
	n := int32(binary.BigEndian.Uint32(h[4:]))
	if n < -1 || n > qaMaxToken {
		return qaPacket{}, fmt.Errorf("%w: token of %d bytes", errQuorumAuthPacket, n)
	}
	if n >= 0 {
		p.token = make([]byte, n)
		if _, err := io.ReadFull(r, p.token); err != nil {
			return qaPacket{}, err
		}
	}
	return p, nil
}

// proveLearner runs the learner exchange (steps 1 and 4): it proves
// cred's user to the peer and checks the peer's proof (rspauth) in turn.
func proveLearner(rw io.ReadWriter, cred *digestmd5.Client) error {
	x := cred.NewExchange()
	if err := writeQAPacket(rw, qaInProgress, x.Initial()); err != nil {
		return err
	}
	for round := 0; round < qaMaxRounds; round++ {
		p, err := readQAPacket(rw)
		if round == 0 && err != nil {
			return fmt.Errorf("%w: %w", errQuorumNoAnswer, err)
		}
		if err != nil {
			return err
		}
		switch p.status {
		case qaError:
			return errQuorumAuthRefused
		case qaInProgress, qaSuccess:
		default:
			return fmt.Errorf("%w: status %d", errQuorumAuthPacket, p.status)
		}
		resp, done, err := x.Step(p.token)
		switch {
		case err != nil:
			return err
		case done != (p.status == qaSuccess):
			return errQuorumAuthProof
		case done:
			return nil
		}
		if err := writeQAPacket(rw, qaInProgress, resp); err != nil {
			return err
		}
	}
	return errQuorumAuthRounds
}

// checkLearner runs the checking side of the exchange whose first packet
// is first (steps 3 and 4) and returns the peer's user. On failure it
// tells the peer ERROR, as ZooKeeper's SaslQuorumAuthServer does.
func checkLearner(rw io.ReadWriter, mech *sasl.DigestMD5, first qaPacket) (string, error) {
	user, err := runCheck(rw, mech, first)
	if err != nil {
		writeQAPacket(rw, qaError, nil) // best effort: the link may be gone
	}
	return user, err
}

func runCheck(rw io.ReadWriter, mech *sasl.DigestMD5, first qaPacket) (string, error) {
	ss := mech.NewServer()
	p := first
	for round := 0; round < qaMaxRounds; round++ {
		if p.status != qaInProgress {
			return "", fmt.Errorf("%w: status %d", errQuorumAuthPacket, p.status)
		}
		challenge, done, err := ss.Step(p.token)
		if err != nil {
			return "", err
		}
		if done {
			return ss.AuthorizationID(), writeQAPacket(rw, qaSuccess, challenge)
		}
		if err := writeQAPacket(rw, qaInProgress, challenge); err != nil {
			return "", err
		}
		if p, err = readQAPacket(rw); err != nil {
			return "", err
		}
	}
	return "", errQuorumAuthRounds
}

// linkPolicy is one server's quorum.auth.* settings and credentials.
type linkPolicy struct {
	creds                         *quorumCredentials
	learnerRequire, serverRequire bool
	timeout                       time.Duration // bounds a link's whole authentication
	log                           *slog.Logger
}

// checkFailed applies serverRequire to a failed check: the error drops
// the link, or is marked errLinkKept.
func (p *linkPolicy) checkFailed(err error) error {
	if p.serverRequire {
		return err
	}
	return fmt.Errorf("%w (%w)", err, errLinkKept)
}

// dialled authenticates a link this server dialled (steps 1 and 4). An
// error marked errLinkKept leaves the link usable.
func (p *linkPolicy) dialled(c net.Conn) error {
	if !p.learnerRequire {
		return nil
	}
	if err := proveLearner(c, p.creds.learner); err != nil {
		return err
	}
	first, err := readQAPacket(c)
	if err != nil {
		return fmt.Errorf("waiting for the peer to authenticate in return: %w", err)
	}
	if first.status == qaNone {
		if p.serverRequire {
			return errPeerNoAuth
		}
		return nil
	}
	user, err := checkLearner(c, p.creds.server, first)
	if err != nil {
		return p.checkFailed(fmt.Errorf("checking the peer's credentials: %w", err))
	}
	p.log.Debug("quorum SASL: peer authenticated", "side", "dialling", "peer", c.RemoteAddr().String(), "user", user)
	return nil
}

// accepted authenticates a link a peer dialled (steps 2 to 4) and returns
// the connection to hand on: for a plain link, one that replays the bytes
// read. An error marked errLinkKept comes with a connection to hand on.
func (p *linkPolicy) accepted(c net.Conn) (net.Conn, error) {
	var head [len(quorumAuthMagic)]byte
	if _, err := io.ReadFull(c, head[:1]); err != nil {
		return nil, err
	}
	if head[0] != quorumAuthMagic[0] {
		return p.plain(c, head[:1])
	}
	if _, err := io.ReadFull(c, head[1:]); err != nil {
		return nil, err
	}
	if head != quorumAuthMagic {
		return p.plain(c, head[:])
	}
	first, err := readQABody(c)
	if err != nil {
		return nil, err
	}
	user, err := checkLearner(c, p.creds.server, first)
	if err != nil {
		return c, p.checkFailed(fmt.Errorf("checking the peer's credentials: %w", err))
	}
	p.log.Debug("quorum SASL: peer authenticated", "side", "accepting", "peer", c.RemoteAddr().String(), "user", user)
	if !p.learnerRequire {
		return c, writeQAPacket(c, qaNone, nil)
	}
	if err := proveLearner(c, p.creds.learner); err != nil {
		return nil, fmt.Errorf("authenticating in return: %w", err)
	}
	return c, nil
}

// plain hands on a link whose peer does not authenticate, unless
// serverRequire refuses it.
func (p *linkPolicy) plain(c net.Conn, read []byte) (net.Conn, error) {
	if p.serverRequire {
		return nil, errPeerNoAuth
	}
	return &replayConn{Conn: c, first: append([]byte(nil), read...)}, nil
}
