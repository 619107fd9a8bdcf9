package metrics

import "sync/atomic"

// Counter is a monotonic count (ZooKeeper's Counter; a Prometheus counter).
type Counter struct{ v atomic.Int64 }

// Add adds n.
func (c *Counter) Add(n int64) { c.v.Add(n) }

// Inc adds one.
func (c *Counter) Inc() { c.v.Add(1) }

// Value returns the count.
func (c *Counter) Value() int64 { return c.v.Load() }
