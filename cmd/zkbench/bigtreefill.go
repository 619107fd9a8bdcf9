package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

const bigtreeRoot = "/bigtree"

// bigtreeParent is parent p's path.
func bigtreeParent(p int) string { return fmt.Sprintf("%s/p%04d", bigtreeRoot, p) }

// bigtreeNode is znode i's path: znode i is child i/parents of parent
// i%parents, so that a fill in index order grows every parent together.
func bigtreeNode(i, parents int) string {
	return fmt.Sprintf("%s/p%04d/n%07d", bigtreeRoot, i%parents, i/parents)
}

// fill creates the root, the parents and o.n znodes, -sessions sessions
// with -inflight creates in flight on each, and checks the children
// counted by the parents.
func (b *bigtree) fill(ctx context.Context) error {
	o, parents := b.o, b.o.bigtree.parents
	sessions, err := openSessions(ctx, b.t.addrs, o.sessions, o.sessionTimeout)
	if err != nil {
		return err
	}
	defer closeAll(sessions)
	if err := createParents(sessions[0].Conn, bigtreeRoot); err != nil {
		return err
	}
	workers := o.sessions * o.inflight
	if err := parallel(parents, workers, func(p int) error {
		_, err := sessions[p%len(sessions)].Create(bigtreeParent(p), nil, 0, openACL)
		return err
	}); err != nil {
		return fmt.Errorf("create parents: %w", err)
	}
	data := payload(o.size)
	var done atomic.Int64
	stop := b.fillProgress(&done)
	start := time.Now()
	batch := o.bigtree.batch
	batches := (o.n + batch - 1) / batch
	err = parallel(batches, workers, func(k int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		from, to := k*batch, min((k+1)*batch, o.n)
		if err := createBatch(sessions[k%len(sessions)].Conn, from, to, parents, data); err != nil {
			return err
		}
		done.Add(int64(to - from))
		return nil
	})
	elapsed := time.Since(start)
	stop()
	if err != nil {
		return fmt.Errorf("after %d creates: %w", done.Load(), err)
	}
	b.res.addMs("fill_ms", "fill time", elapsed)
	b.res.add("creates_per_s", "create rate", unitRate, float64(o.n)/elapsed.Seconds())
	b.progress("filled %d znodes in %v", o.n, elapsed.Round(time.Millisecond))
	count, err := countChildren(sessions[0], parents)
	if err != nil {
		return err
	}
	if count != o.n {
		return fmt.Errorf("the parents have %d children after the fill, want %d", count, o.n)
	}
	b.res.add("znodes", "znodes created", unitCount, float64(count))
	return nil
}

// createBatch creates znodes from..to-1, in one multi when there are
// several: a bulk load of millions of znodes goes at the servers' pace
// rather than one round trip per znode (the same for both servers).
func createBatch(c *zk.Conn, from, to, parents int, data []byte) error {
	if to-from == 1 {
		p := bigtreeNode(from, parents)
		if _, err := c.Create(p, data, 0, openACL); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
		return nil
	}
	ops := make([]any, 0, to-from)
	for i := from; i < to; i++ {
		ops = append(ops, &zk.CreateRequest{Path: bigtreeNode(i, parents), Data: data, Acl: openACL})
	}
	res, err := c.Multi(ops...)
	if err == nil {
		for _, r := range res {
			if r.Error != nil {
				err = r.Error
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("multi of creates %s...: %w", bigtreeNode(from, parents), err)
	}
	return nil
}

// fillProgress prints the creates done every 30 s until stop is called.
func (b *bigtree) fillProgress(done *atomic.Int64) (stop func()) {
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(30 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				b.progress("fill: %d of %d created", done.Load(), b.o.n)
			}
		}
	}()
	return func() { close(quit); <-finished }
}

// countChildren sums the parents' child counts after a sync.
func countChildren(s *session, parents int) (int, error) {
	if _, err := s.Sync(bigtreeRoot); err != nil {
		return 0, fmt.Errorf("sync: %w", err)
	}
	total := 0
	for p := range parents {
		_, st, err := s.Exists(bigtreeParent(p))
		if err != nil {
			return 0, fmt.Errorf("exists %s: %w", bigtreeParent(p), err)
		}
		total += int(st.NumChildren)
	}
	return total, nil
}

// readTree reads one znode of the tree on a fresh session to addr alone:
// the server serves the tree.
func readTree(ctx context.Context, addr string, o *options) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := connect(ctx, []string{addr}, 4*time.Second)
	if err != nil {
		return err
	}
	defer s.close()
	last := bigtreeNode(o.n-1, o.bigtree.parents)
	data, _, err := s.Get(last)
	if err != nil {
		return fmt.Errorf("get %s: %w", last, err)
	}
	if len(data) != o.size {
		return fmt.Errorf("get %s: %d bytes, want %d", last, len(data), o.size)
	}
	return nil
}

// setOne sets a random znode of the tree.
func setOne(c *zk.Conn, i int, o *options, data []byte) error {
	_, err := c.Set(bigtreeNode(i%o.n, o.bigtree.parents), data, -1)
	return err
}
