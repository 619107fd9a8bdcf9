package server

import (
	"crypto/tls"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/internal/acceptretry"
	"github.com/zkraft/zkraft/internal/testlog"
)

// emfileFirst fails its first n accepts with EMFILE, then accepts from
// the listener it wraps.
type emfileFirst struct {
	net.Listener
	mu sync.Mutex
	n  int
}

func (l *emfileFirst) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.n > 0 {
		l.n--
		l.mu.Unlock()
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	l.mu.Unlock()
	return l.Listener.Accept()
}

func (l *emfileFirst) left() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// emfileNetwork is the real network whose listeners fail their first n
// accepts with EMFILE.
type emfileNetwork struct {
	consensus.TCP
	n    int
	last *emfileFirst
}

func (e *emfileNetwork) Listen(addr string) (net.Listener, error) {
	ln, err := e.TCP.Listen(addr)
	if err != nil {
		return nil, err
	}
	e.last = &emfileFirst{Listener: ln, n: e.n}
	return e.last, nil
}

// The quorum TLS listener hands an accept error on as it is: still
// EMFILE, still temporary for the loop above, which then accepts on.
func TestQuorumTLSListenerPassesAcceptErrorsOn(t *testing.T) {
	inner := &emfileNetwork{n: 1}
	tcp, err := inner.Listen("127.0.0.1:0")
	require.NoError(t, err)
	l := &tlsListener{Listener: tcp, config: func() *tls.Config { return &tls.Config{} }}
	defer l.Close()
	_, err = l.Accept()
	require.ErrorIs(t, err, syscall.EMFILE)
	require.True(t, acceptretry.Temporary(err))

	go func() {
		if c, err := net.Dial("tcp", l.Addr().String()); err == nil {
			c.Close()
		}
	}()
	c, err := l.Accept()
	require.NoError(t, err, "the listener accepts after the error")
	c.Close()
}

// The quorum SASL listener hands accept errors on as they are, refuses a
// link that fails its authentication without returning an error, and
// hands on the next good link: behind acceptretry (as consensus wraps
// it) the loop above sees neither, and one WARN is logged.
func TestQuorumSASLListenerKeepsAcceptingAfterEMFILE(t *testing.T) {
	inner := &emfileNetwork{n: 3}
	acceptor := testPolicy("right", true, true) // serverRequire: plain links are refused
	sl, err := newSASLNetwork(inner, acceptor).Listen("127.0.0.1:0")
	require.NoError(t, err)

	// Unwrapped, the first accept returns EMFILE.
	_, err = sl.Accept()
	require.ErrorIs(t, err, syscall.EMFILE)
	require.True(t, acceptretry.Temporary(err))

	var logs testlog.Buffer
	ln := acceptretry.Wrap(sl, slog.New(slog.NewTextHandler(&logs, nil)), "raft (peer) port")
	defer ln.Close()
	type result struct {
		c   net.Conn
		err error
	}
	got := make(chan result, 1)
	go func() { c, err := ln.Accept(); got <- result{c, err} }()

	require.Eventually(t, func() bool { return inner.last.left() == 0 }, 30*time.Second, time.Millisecond)
	plain, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer plain.Close()
	_, err = plain.Write([]byte{0}) // a Raft RPC type, without authentication
	require.NoError(t, err)
	plain.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = plain.Read(make([]byte, 1))
	require.Error(t, err, "the unauthenticated link is closed")

	good, err := newSASLNetwork(consensus.TCP{}, testPolicy("right", true, true)).Dial(ln.Addr().String(), 30*time.Second)
	require.NoError(t, err)
	defer good.Close()
	select {
	case r := <-got:
		require.NoError(t, r.err)
		defer r.c.Close()
		exchange(t, good, r.c)
	case <-time.After(30 * time.Second):
		t.Fatal("the authenticated link was not handed on")
	}
	require.Equal(t, 1, logs.Count("level=WARN"), logs.String())
}
