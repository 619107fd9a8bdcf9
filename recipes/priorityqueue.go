package recipes

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// PriorityQueue is a distributed queue whose items are taken by priority,
// lowest number first, and in FIFO order within a priority (as in
// Curator's DistributedPriorityQueue and kazoo's Queue). Every int is a
// valid priority, negative ones included.
//
// The priority is encoded in the item's name ahead of its sequence number
// ("item-p0000000000000000003-0000000042" for priority 3, "item-n…" for
// negative ones), so that sorting names gives the taking order; taking
// works as in Queue, with the same once-only claims. A directory must be
// used by a Queue or a PriorityQueue, not both.
type PriorityQueue struct{ q queue }

// NewPriorityQueue returns the priority queue in dir (created if missing).
// WithACL sets the ACL of the nodes it creates.
func NewPriorityQueue(conn *zk.Conn, dir string, opts ...Option) *PriorityQueue {
	return &PriorityQueue{q: queue{conn: conn, dir: dir, opt: buildOptions(opts)}}
}

// Put adds an item holding data with the given priority: lower numbers are
// taken first.
func (q *PriorityQueue) Put(ctx context.Context, data []byte, priority int) error {
	return q.q.put(ctx, queueItemPrefix+priorityKey(priority)+"-", data)
}

// Take removes the item with the lowest priority number, the oldest among
// equals, and returns its data, waiting for one if the queue is empty.
// Cancellation works as for Queue.Take.
func (q *PriorityQueue) Take(ctx context.Context) ([]byte, error) { return q.q.take(ctx) }

// Len returns the number of items in the queue.
func (q *PriorityQueue) Len(ctx context.Context) (int, error) { return q.q.len(ctx) }

// priorityKey encodes p in 20 characters that sort as the numbers do:
// "n" then p+2⁶³ for negative p, "p" then p otherwise.
func priorityKey(p int) string {
	if p < 0 {
		return fmt.Sprintf("n%019d", uint64(int64(p))+1<<63)
	}
	return fmt.Sprintf("p%019d", p)
}
