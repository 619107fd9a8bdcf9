package join

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/go-zookeeper/zk"
)

// Request asks an ensemble to add one server.
type Request struct {
	// Servers are client addresses of the members to ask, in turn.
	Servers []string
	// Key and Line are the new member's server.N key and its value.
	Key, Line string
	// Password is the digest super user's; reconfig needs WRITE on
	// /zookeeper/config.
	Password string
	// PeerAddr, when set, is waited for (a TCP dial) before the
	// reconfig: the new server's own Raft listener, so that the leader
	// does not count a voter that is not up yet.
	PeerAddr string
	Log      *slog.Logger
}

// Add makes the ensemble list r.Key, retrying until it does or ctx ends:
// nothing is changed when it is already a member (a restart), and a
// refused or failed reconfig (no quorum yet, another change in progress,
// a connection lost) is tried again after retryEvery.
func Add(ctx context.Context, r Request) error {
	if err := waitListening(ctx, r.PeerAddr); err != nil {
		return err
	}
	for {
		err := addOnce(ctx, r)
		if err == nil {
			return nil
		}
		r.Log.Info("join: will retry", "server", r.Key, "err", err)
		if err := pause(ctx); err != nil {
			return err
		}
	}
}

// addOnce tries each server once; the first that is reachable decides.
func addOnce(ctx context.Context, r Request) error {
	var errs []error
	for _, addr := range r.Servers {
		c, err := dial(ctx, addr)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", addr, err))
			continue
		}
		err = addVia(c, r)
		c.Close()
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", addr, err))
	}
	return errors.Join(errs...)
}

func addVia(c *zk.Conn, r Request) error {
	lines, err := members(c)
	if err != nil {
		return err
	}
	if listed(lines, r.Key) {
		r.Log.Info("join: already a member", "server", r.Key)
		return nil
	}
	if err := c.AddAuth("digest", []byte("super:"+r.Password)); err != nil {
		return err
	}
	if _, err := c.IncrementalReconfig([]string{r.Key + "=" + r.Line}, nil, -1); err != nil {
		return fmt.Errorf("reconfig -add %s=%s: %w", r.Key, r.Line, err)
	}
	if lines, err = members(c); err != nil {
		return err
	}
	if !listed(lines, r.Key) {
		return ErrNotListed
	}
	r.Log.Info("join: added to the ensemble", "server", r.Key, "line", r.Line)
	return nil
}

// waitListening waits until addr accepts TCP connections ("" waits for
// nothing).
func waitListening(ctx context.Context, addr string) error {
	for addr != "" {
		var d net.Dialer
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		c, err := d.DialContext(dctx, "tcp", addr)
		cancel()
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond): // poll interval of the dial above
		}
	}
	return nil
}
