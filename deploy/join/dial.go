package join

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
)

// errNoSession is returned when a server accepted the connection but gave
// no session in time (it has no quorum, or it is not a member).
var errNoSession = errors.New("no session within the timeout")

// dialTimeout bounds one connection attempt, session included.
const dialTimeout = 5 * time.Second

// dial connects to one server and waits for a session. A single address
// per connection: go-zookeeper gives up on the whole list when one name
// does not resolve, and a StatefulSet's later pods may not exist yet.
func dial(ctx context.Context, addr string) (*zk.Conn, error) {
	c, events, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		return nil, err
	}
	timer := time.NewTimer(dialTimeout)
	defer timer.Stop()
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return c, nil
			}
		case <-timer.C:
			c.Close()
			return nil, errNoSession
		case <-ctx.Done():
			c.Close()
			return nil, ctx.Err()
		}
	}
}

// quiet drops go-zookeeper's log lines; the caller logs what matters.
type quiet struct{}

func (quiet) Printf(string, ...any) {}
