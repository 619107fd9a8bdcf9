package main

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/zkraft/zkraft/auth/digestmd5"
	"github.com/zkraft/zkraft/wire"
)

// saslXid is the xid of the SASL requests: one the tap's own counter never
// gives (it starts below), and the exchange is over before any other
// request is sent.
const saslXid = tapFirstXid

// saslLogin is the tap's SASL state: the credentials, and the first
// failure, after which the tap refuses to connect again (the Java client
// stops in AUTH_FAILED).
type saslLogin struct {
	client *digestmd5.Client
	once   sync.Once
	failed chan struct{} // closed at the first failure
	err    error         // set before failed is closed
}

func newSASLLogin(c *digestmd5.Client) *saslLogin {
	return &saslLogin{client: c, failed: make(chan struct{})}
}

// fail records the first failure.
func (s *saslLogin) fail(err error) {
	s.once.Do(func() {
		s.err = err
		close(s.failed)
	})
}

// failure returns the failure, or nil.
func (s *saslLogin) failure() error {
	if s == nil {
		return nil
	}
	select {
	case <-s.failed:
		return s.err
	default:
		return nil
	}
}

// failedCh is closed at the first failure; nil (never ready) without SASL.
func (s *saslLogin) failedCh() <-chan struct{} {
	if s == nil {
		return nil
	}
	return s.failed
}

// run logs in on a connection whose handshake reply has just been read,
// before go-zookeeper, which waits for that reply, sends anything: the
// client's tokens go out as sasl (102) requests and the server's come back
// in their replies, until the server has proved it knows the password.
// A server error in a reply (AUTHFAILED) is a wrong user or password.
func (s *saslLogin) run(nc net.Conn, timeout time.Duration) error {
	nc.SetDeadline(time.Now().Add(timeout))
	defer nc.SetDeadline(time.Time{})
	x := s.client.NewExchange()
	token := x.Initial()
	for first := true; ; first = false {
		reply, err := saslRoundTrip(nc, token)
		var refused *keeperError
		if errors.As(err, &refused) {
			return fmt.Errorf("%w as %s: the server answered %v (wrong user name or password?)", errSASLFailed, s.client.Username, refused)
		}
		if err != nil {
			return err
		}
		if first && len(reply) == 0 {
			return fmt.Errorf("%w: the server offers no SASL (no login configured)", errSASLFailed)
		}
		next, done, err := x.Step(reply)
		if err != nil {
			return fmt.Errorf("%w as %s: %v", errSASLFailed, s.client.Username, err)
		}
		if done {
			return nil
		}
		token = next
	}
}

// saslRoundTrip sends one token and returns the server's; a server error
// comes back as a keeperError.
func saslRoundTrip(nc net.Conn, token []byte) ([]byte, error) {
	frame := wire.AppendFrame(nil, &wire.RequestHeader{Xid: saslXid, Type: wire.OpSASL}, &wire.SASLRequest{Token: token})
	if _, err := nc.Write(frame); err != nil {
		return nil, err
	}
	body, err := wire.ReadFrame(nc, tapMaxFrame, nil)
	if err != nil {
		return nil, err
	}
	d := wire.NewDecoder(body, 0)
	var h wire.ReplyHeader
	h.Decode(d)
	if err := d.Err(); err != nil {
		return nil, err
	}
	if h.Err != wire.CodeOK {
		return nil, &keeperError{h.Err, ""}
	}
	var resp wire.SASLResponse
	resp.Decode(d)
	return resp.Token, d.Err()
}
