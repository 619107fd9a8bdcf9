package session

import (
	"math"
	"sync/atomic"
	"time"
)

// IDGenerator makes session ids as ZooKeeper's SessionTrackerImpl: the top
// byte is the server id, the next five bytes come from the creation time in
// milliseconds, the low two bytes count up from zero. It is safe for
// concurrent use.
type IDGenerator struct {
	next atomic.Int64
}

// NewIDGenerator returns a generator whose first id is
// (serverID << 56) | ((ms << 24) >>> 8), ms being now in Unix milliseconds
// and >>> an unsigned shift. That first id is bumped by one if it would be
// math.MinInt64, the container ephemeral-owner marker.
func NewIDGenerator(serverID int64, now time.Time) *IDGenerator {
	g := &IDGenerator{}
	g.next.Store(FirstID(serverID, now))
	return g
}

// FirstID returns the first session id a server with serverID starting at
// now hands out.
func FirstID(serverID int64, now time.Time) int64 {
	ms := now.UnixMilli()
	id := int64(uint64(ms<<24)>>8) | serverID<<56
	if id == math.MinInt64 {
		id++
	}
	return id
}

// Next returns a fresh session id, never math.MinInt64.
func (g *IDGenerator) Next() int64 {
	for {
		id := g.next.Add(1) - 1
		if id != math.MinInt64 {
			return id
		}
	}
}

// Negotiate clamps a requested session timeout (ms) to [min, max] as
// ZooKeeperServer.processConnectRequest does: first raised to min, then
// lowered to max, so max wins if min > max.
func Negotiate(requested, min, max int32) int32 {
	if requested < min {
		requested = min
	}
	if requested > max {
		requested = max
	}
	return requested
}
