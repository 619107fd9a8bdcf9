package server

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/auth/digestmd5"
	"github.com/zkraft/zkraft/auth/sasl"
	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/internal/testlog"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// testPolicy is a server whose QuorumServer section has user "zk" with
// password "right" and whose QuorumLearner section logs in as "zk" with
// learnerPW.
func testPolicy(learnerPW string, learnerRequire, serverRequire bool) *linkPolicy {
	return &linkPolicy{
		creds: &quorumCredentials{
			server: &sasl.DigestMD5{Users: map[string]string{"zk": "right"}, Realm: quorumSASLServerName,
				Protocol: quorumSASLProtocol, ServerName: quorumSASLServerName},
			learner: &digestmd5.Client{Username: "zk", Password: learnerPW, Protocol: quorumSASLProtocol,
				ServerName: quorumSASLServerName},
		},
		learnerRequire: learnerRequire, serverRequire: serverRequire, timeout: 5 * time.Second, log: quietLog,
	}
}

// linkOutcome is how both ends of one link ended their authentication.
type linkOutcome struct {
	dialErr, acceptErr error
	dialConn, app      net.Conn // app: what the accepting side hands on
}

// authenticatePipe runs both ends' authentication over net.Pipe.
func authenticatePipe(t *testing.T, dialler, acceptor *linkPolicy) linkOutcome {
	t.Helper()
	d, a := net.Pipe()
	t.Cleanup(func() { d.Close(); a.Close() })
	deadline := time.Now().Add(5 * time.Second)
	d.SetDeadline(deadline)
	a.SetDeadline(deadline)
	var o linkOutcome
	var wg sync.WaitGroup
	wg.Go(func() { o.app, o.acceptErr = acceptor.accepted(a) })
	o.dialErr = dialler.dialled(d)
	if o.dialErr != nil && !errors.Is(o.dialErr, errLinkKept) {
		d.Close() // as Dial does: the accepting side then stops waiting
	}
	wg.Wait()
	o.dialConn = d
	return o
}

// exchange checks that bytes written on one end arrive on the other, both
// ways, once the authentication is over.
func exchange(t *testing.T, dialConn, app net.Conn) {
	t.Helper()
	for _, dir := range [][2]net.Conn{{dialConn, app}, {app, dialConn}} {
		msg := []byte("\x00\x00\x00\x05hello")
		go dir[0].Write(msg)
		got := make([]byte, len(msg))
		_, err := io.ReadFull(dir[1], got)
		require.NoError(t, err)
		require.Equal(t, msg, got)
	}
}

func TestQuorumSASLLink_BothProveThemselves(t *testing.T) {
	o := authenticatePipe(t, testPolicy("right", true, true), testPolicy("right", true, true))
	require.NoError(t, o.dialErr)
	require.NoError(t, o.acceptErr)
	exchange(t, o.dialConn, o.app)
}

// A dialling server with a wrong password is refused; with
// serverRequireSasl the accepting side drops the link, without it keeps
// it (with a warning) and the dialling side drops it.
func TestQuorumSASLLink_WrongPassword(t *testing.T) {
	o := authenticatePipe(t, testPolicy("wrong", true, true), testPolicy("right", true, true))
	require.ErrorIs(t, o.dialErr, errQuorumAuthRefused)
	require.ErrorIs(t, o.acceptErr, sasl.ErrAuthFailed)
	require.NotErrorIs(t, o.acceptErr, errLinkKept)

	o = authenticatePipe(t, testPolicy("wrong", true, false), testPolicy("right", true, false))
	require.ErrorIs(t, o.dialErr, errQuorumAuthRefused, "the learner drops a refused link")
	require.ErrorIs(t, o.acceptErr, errLinkKept)
	require.NotNil(t, o.app)
}

// The accepting server proves itself in return: one whose QuorumLearner
// password is wrong cannot take part in a link a good server dials.
func TestQuorumSASLLink_AcceptorWrongPassword(t *testing.T) {
	o := authenticatePipe(t, testPolicy("right", true, true), testPolicy("wrong", true, true))
	require.ErrorIs(t, o.dialErr, sasl.ErrAuthFailed)
	require.NotErrorIs(t, o.dialErr, errLinkKept)
	require.ErrorIs(t, o.acceptErr, errQuorumAuthRefused)

	o = authenticatePipe(t, testPolicy("right", true, false), testPolicy("wrong", true, false))
	require.ErrorIs(t, o.dialErr, errLinkKept, "kept by the checking side without serverRequireSasl")
	require.ErrorIs(t, o.acceptErr, errQuorumAuthRefused, "and dropped by the side that was refused")
}

// An accepting server without learnerRequireSasl says it does not
// authenticate in return: fine for a dialler without serverRequireSasl,
// refused by one with it.
func TestQuorumSASLLink_AcceptorDoesNotProve(t *testing.T) {
	o := authenticatePipe(t, testPolicy("right", true, false), testPolicy("right", false, false))
	require.NoError(t, o.dialErr)
	require.NoError(t, o.acceptErr)
	exchange(t, o.dialConn, o.app)

	o = authenticatePipe(t, testPolicy("right", true, true), testPolicy("right", false, false))
	require.ErrorIs(t, o.dialErr, errPeerNoAuth)
}

// A dialler without learnerRequireSasl sends nothing: its first bytes
// reach the application unchanged unless serverRequireSasl refuses it.
func TestQuorumSASLLink_PlainPeer(t *testing.T) {
	first := []byte{0, 0, 0, 8, 0, 0, 0, 2, 0, 0, 0, 0} // a forwarding frame (a keepalive)
	for _, serverRequire := range []bool{false, true} {
		d, a := net.Pipe()
		d.SetDeadline(time.Now().Add(5 * time.Second))
		a.SetDeadline(time.Now().Add(5 * time.Second))
		require.NoError(t, testPolicy("right", false, false).dialled(d), "sends nothing")
		go d.Write(first)
		app, err := testPolicy("right", true, serverRequire).accepted(a)
		if serverRequire {
			require.ErrorIs(t, err, errPeerNoAuth)
		} else {
			require.NoError(t, err)
			got := make([]byte, len(first))
			_, err = io.ReadFull(app, got)
			require.NoError(t, err)
			require.Equal(t, first, got, "the peeked byte is replayed")
		}
		d.Close()
		a.Close()
	}
}

// A peer that connects and says nothing is dropped when the policy's
// timeout runs out, and holds up no other peer's link meanwhile.
func TestQuorumSASLLink_SilentPeerTimesOut(t *testing.T) {
	p := testPolicy("right", true, true)
	p.timeout = 200 * time.Millisecond
	n := newSASLNetwork(consensus.TCP{}, p)
	ln, err := n.Listen("127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()

	silent, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer silent.Close()
	good, err := n.Dial(ln.Addr().String(), 5*time.Second)
	require.NoError(t, err, "a good peer authenticates while the silent one is pending")
	defer good.Close()
	app, err := ln.Accept()
	require.NoError(t, err)
	defer app.Close()
	exchange(t, good, app)

	start := time.Now()
	silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = silent.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "the silent peer is closed at the timeout")
	require.Less(t, time.Since(start), 2*time.Second)
}

// A dialler whose peer does not speak quorum SASL at all (hangs up on the
// packet, as a server without quorum.auth.enableSasl does) gets a hint.
func TestQuorumSASLLink_PeerWithoutSASL(t *testing.T) {
	d, a := net.Pipe()
	defer d.Close()
	go func() { io.ReadFull(a, make([]byte, 16)); a.Close() }() // reads the first packet, hangs up
	d.SetDeadline(time.Now().Add(5 * time.Second))
	err := testPolicy("right", true, true).dialled(d)
	require.ErrorIs(t, err, errQuorumNoAnswer)
}

func TestQuorumSASLPacketLimits(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, writeQAPacket(&b, qaError, nil))
	p, err := readQAPacket(&b)
	require.NoError(t, err)
	require.Equal(t, qaPacket{status: qaError}, p)

	b.Reset()
	b.Write(quorumAuthMagic[:])
	b.Write([]byte{0, 0, 0, 0, 0x7f, 0, 0, 0})
	_, err = readQAPacket(&b)
	require.ErrorIs(t, err, errQuorumAuthPacket)

	b.Reset()
	b.WriteString("NOTMAGIC")
	_, err = readQAPacket(&b)
	require.ErrorIs(t, err, errQuorumAuthPacket)
}

// Raft redials a peer that refuses it again and again: the failure is
// logged once per peer on each side, and the recovery once.
func TestQuorumSASLFailuresLoggedOncePerPeer(t *testing.T) {
	var acceptLog, dialLog testlog.Buffer
	logTo := func(b *testlog.Buffer) *slog.Logger {
		return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	acceptor := testPolicy("right", true, true)
	acceptor.log = logTo(&acceptLog)
	ln, err := newSASLNetwork(consensus.TCP{}, acceptor).Listen("127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	dialler := testPolicy("wrong", true, true)
	dialler.log = logTo(&dialLog)
	n := newSASLNetwork(consensus.TCP{}, dialler)
	for range 5 {
		_, err := n.Dial(ln.Addr().String(), 5*time.Second)
		require.ErrorIs(t, err, errQuorumAuthRefused)
	}
	// Each refused link is noted by its own goroutine: wait for them all
	// before the link that works.
	require.Eventually(t, func() bool { return ln.(*saslListener).authenticating() == 0 }, 5*time.Second, time.Millisecond)
	dialler.creds.learner.Password = "right"
	c, err := n.Dial(ln.Addr().String(), 5*time.Second)
	require.NoError(t, err)
	defer c.Close()
	app, err := ln.Accept()
	require.NoError(t, err)
	defer app.Close()

	require.Equal(t, 1, strings.Count(dialLog.String(), "quorum SASL authentication failed"), dialLog.String())
	require.Equal(t, 1, strings.Count(dialLog.String(), "quorum SASL authentication works again"), dialLog.String())
	require.Equal(t, 1, strings.Count(acceptLog.String(), "quorum SASL authentication works again"), acceptLog.String())
	require.Equal(t, 1, strings.Count(acceptLog.String(), "quorum SASL authentication failed"), acceptLog.String())
}

// authenticating is the number of accepted links still authenticating
// (or not yet noted).
func (l *saslListener) authenticating() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pending)
}
