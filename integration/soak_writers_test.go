package integration

import (
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/internal/linearizable"
)

// The no-lost-acknowledged-write check. Each writer creates znodes with
// names it never reuses and sets its own counter znode to an increasing
// number, recording what the servers acknowledged. At the end of every
// period, on a healthy ensemble, a fresh client on each server in turn
// syncs and lists the writers' znodes: every acknowledged create must be
// there, and each counter must hold at least the last acknowledged value
// (a lower one is a lost write, or a write applied out of the session's
// order). Verified znodes are then deleted, so the tree stays small and
// the heap figures mean something.

type writer struct {
	i        int
	c        *zk.Conn
	mu       sync.Mutex
	acked    []int64 // acknowledged creates not yet verified
	lastSet  int64   // the last acknowledged counter value
	verified atomic.Int64
}

func (w *writer) dir() string     { return fmt.Sprintf("/soak/w/w%d", w.i) }
func (w *writer) counter() string { return fmt.Sprintf("/soak/w/c%d", w.i) }
func childName(n int64) string    { return fmt.Sprintf("n%010d", n) }

func (s *soak) startWriter(i int) *writer {
	w := &writer{i: i, c: s.connect()}
	for _, p := range []string{w.dir(), w.counter()} {
		if _, err := w.c.Create(p, []byte("0"), 0, openACL); err != nil {
			s.t.Fatalf("soak: create %s: %v", p, err)
		}
	}
	rng := rand.New(rand.NewSource(s.seedFor("writer", i)))
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for n := int64(1); !s.stopped(); n++ {
			t0 := time.Now()
			if rng.Intn(10) < 7 {
				_, err := w.c.Create(w.dir()+"/"+childName(n), []byte(strconv.FormatInt(n, 10)), 0, openACL)
				code, _ := linearizable.CodeOf(err)
				s.countOp("writer-create", code, time.Since(t0))
				if err == nil {
					w.mu.Lock()
					w.acked = append(w.acked, n)
					w.mu.Unlock()
				}
			} else {
				_, err := w.c.Set(w.counter(), []byte(strconv.FormatInt(n, 10)), -1)
				code, _ := linearizable.CodeOf(err)
				s.countOp("writer-set", code, time.Since(t0))
				if err == nil {
					w.mu.Lock()
					w.lastSet = n
					w.mu.Unlock()
				}
			}
		}
	}()
	return w
}

// writtenVerified is the number of acknowledged writes found on every server.
func (s *soak) writtenVerified() int64 {
	var n int64
	for _, w := range s.writers {
		n += w.verified.Load()
	}
	return n
}

// writerSnap is what a writer had acknowledged when a verification began.
type writerSnap struct {
	acked   []int64
	lastSet int64
}

// ephSnap is an ephemeral client's session and znode when a verification began.
type ephSnap struct {
	e    *ephClient
	sid  int64
	path string
}

// verifyWrites checks every acknowledged write and every live session's
// ephemeral on every server, then deletes the verified znodes.
func (s *soak) verifyWrites(period int) {
	snaps := make([]writerSnap, len(s.writers))
	for i, w := range s.writers {
		w.mu.Lock()
		snaps[i] = writerSnap{acked: w.acked, lastSet: w.lastSet}
		w.acked = nil
		w.mu.Unlock()
	}
	var ephs []ephSnap
	for _, e := range s.ephs {
		if sid, path, ok := e.current(); ok {
			ephs = append(ephs, ephSnap{e, sid, path})
		}
	}
	var del *zk.Conn
	for i, addr := range s.addrs {
		c, err := dialOne(addr)
		if err != nil {
			s.found.add("period %d: verification could not open a session on server %d of a healthy ensemble: %v", period, i+1, err)
			continue
		}
		s.verifyOn(period, i, c, snaps, ephs)
		if del == nil {
			del = c
			defer c.Close()
		} else {
			c.Close()
		}
	}
	for i, w := range s.writers {
		w.verified.Add(int64(len(snaps[i].acked)))
		if snaps[i].lastSet > 0 {
			w.verified.Add(1)
		}
		if del != nil && len(snaps[i].acked) > 0 {
			s.deleteVerified(del, w, snaps[i].acked[len(snaps[i].acked)-1])
		}
	}
}

func (s *soak) verifyOn(period, server int, c *zk.Conn, snaps []writerSnap, ephs []ephSnap) {
	if _, err := retry(func() (any, error) { return c.Sync("/soak") }); err != nil {
		s.found.add("period %d: sync on server %d failed on a healthy ensemble: %v", period, server+1, err)
		return
	}
	for i, w := range s.writers {
		kids, err := retry(func() ([]string, error) { k, _, err := c.Children(w.dir()); return k, err })
		if err != nil {
			s.found.add("period %d: server %d: list %s: %v", period, server+1, w.dir(), err)
			continue
		}
		have := make(map[string]bool, len(kids))
		for _, k := range kids {
			have[k] = true
		}
		var missing []string
		for _, n := range snaps[i].acked {
			if !have[childName(n)] {
				missing = append(missing, childName(n))
			}
		}
		if len(missing) > 0 {
			s.found.add("period %d: LOST ACKNOWLEDGED WRITE: server %d lacks %d of writer %d's %d acknowledged creates, e.g. %v",
				period, server+1, len(missing), w.i, len(snaps[i].acked), missing[:min(len(missing), 5)])
		}
		data, err := retry(func() ([]byte, error) { d, _, err := c.Get(w.counter()); return d, err })
		if err != nil {
			s.found.add("period %d: server %d: get %s: %v", period, server+1, w.counter(), err)
			continue
		}
		if v, _ := strconv.ParseInt(string(data), 10, 64); v < snaps[i].lastSet {
			s.found.add("period %d: LOST ACKNOWLEDGED WRITE: server %d has %s=%d after the set of %d was acknowledged",
				period, server+1, w.counter(), v, snaps[i].lastSet)
		}
	}
	s.verifyEphemeralsOn(period, server, ephs)
}

// verifyEphemeralsOn checks that the server, just synced, holds the
// ephemeral of every session that was live when verification began and
// still is.
func (s *soak) verifyEphemeralsOn(period, server int, ephs []ephSnap) {
	srv := s.c.Servers[server]
	if srv == nil {
		return
	}
	owned := srv.Ephemerals()
	for _, e := range ephs {
		has := false
		for _, p := range owned[e.sid] {
			has = has || p == e.path
		}
		if sid, _, _ := e.e.current(); !has && sid == e.sid {
			s.found.add("period %d: server %d lacks ephemeral %s of live session 0x%x", period, server+1, e.path, e.sid)
		}
	}
}

// deleteVerified deletes the writer's znodes up to n, in multis of 100.
func (s *soak) deleteVerified(c *zk.Conn, w *writer, upTo int64) {
	kids, _, err := c.Children(w.dir())
	if err != nil {
		return // left for the next period
	}
	sort.Strings(kids)
	var ops []any
	flush := func() {
		if len(ops) > 0 {
			c.Multi(ops...) // a failure leaves them for the next period
			ops = ops[:0]
		}
	}
	for _, k := range kids {
		if k > childName(upTo) {
			break
		}
		ops = append(ops, &zk.DeleteRequest{Path: w.dir() + "/" + k, Version: -1})
		if len(ops) == 100 {
			flush()
		}
	}
	flush()
}

// retry runs a read until it gets a definite answer or 20 s pass: a fresh
// verification client can still be settling on its server.
func retry[T any](f func() (T, error)) (T, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		v, err := f()
		if _, definite := linearizable.CodeOf(err); definite || time.Now().After(deadline) {
			return v, err
		}
		time.Sleep(50 * time.Millisecond) // the session is reconnecting; retry pace
	}
}

var errNoSession = errors.New("soak: no session within 20s")

// dialOne connects a client to one server only and waits for its session.
func dialOne(addr string) (*zk.Conn, error) {
	c, events, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		return nil, err
	}
	deadline := time.After(20 * time.Second)
	for c.State() != zk.StateHasSession {
		select {
		case <-events:
		case <-deadline:
			c.Close()
			return nil, errNoSession
		}
	}
	return c, nil
}
