package recipes

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
)

// transientErr reports whether a request may be sent again after err: a
// connection loss, or a session expiry (the client gets a new session).
func transientErr(err error) bool {
	return retryable(err) || errors.Is(err, zk.ErrSessionExpired)
}

// Bounds of the delay between retries: from pause's step up to a second.
const (
	retryMin = 10 * time.Millisecond
	retryMax = time.Second
)

// closedStrikes is how many failures in a row, each with the client
// disconnected, tell a closed client from a lost connection.
const closedStrikes = 3

// retrier paces the retries of a loop that may outlive its client's
// connection, waiting longer each time, and tells a closed client from a
// lost connection. Both make requests fail with zk.ErrConnectionClosed,
// but a client that lost its connection reconnects at once (its state is
// "disconnected" only for an instant, then "connecting" while it retries)
// and queues the next requests until it has, while a closed one stays
// disconnected and fails every request at once.
type retrier struct {
	conn    *zk.Conn
	delay   time.Duration
	strikes int
}

// retry waits before a request that failed with err is sent again. It
// returns err itself if it is not transient, zk.ErrClosing if the client
// has been closed, and ctx's error if ctx ends first.
func (r *retrier) retry(ctx context.Context, err error) error {
	if !transientErr(err) {
		return err
	}
	if errors.Is(err, zk.ErrConnectionClosed) && r.conn.State() == zk.StateDisconnected {
		if r.strikes++; r.strikes >= closedStrikes {
			return zk.ErrClosing
		}
	} else {
		r.strikes = 0
	}
	r.delay = min(max(2*r.delay, retryMin), retryMax)
	t := time.NewTimer(r.delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// reset starts afresh after a request succeeded.
func (r *retrier) reset() { r.delay, r.strikes = 0, 0 }
