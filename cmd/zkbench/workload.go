package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// opKind is the operation a run repeats.
type opKind int

const (
	opGet opKind = iota
	opSet
	opCreate
	opCreateDelete
	opMix
	opConnect
	opFill // the scale ops (scale.go)
	opSessions
	opWatchers
	opStart // process start to first write (start.go)
	opLock  // lock handoff (lock.go)
	// many watches: memory and wchs/wchc/wchp (watches.go)
	opWatches
	opStorm // reconnect storm after a leader kill, or a stop (storm.go)
	opStormStop
	opBigtree // a 10M-znode tree: memory, restart, snapshots, catch-up (bigtree.go)
	opConns   // as many client connections as one server can hold (conns.go)
)

var opNames = [...]string{"get", "set", "create", "create-delete", "mix", "connect", "fill", "sessions", "watchers", "start", "lock", "watches", "storm", "storm-stop", "bigtree", "conns"}

func (k opKind) String() string { return opNames[k] }

// parseOp accepts the names in opNames (and create+delete).
func parseOp(s string) (opKind, error) {
	if s == "create+delete" {
		return opCreateDelete, nil
	}
	for i, n := range opNames {
		if s == n {
			return opKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown -op %q (want one of %s)", s, strings.Join(opNames[:], ", "))
}

// needsKeys reports whether the operation reads or writes the -keys znodes.
func (k opKind) needsKeys() bool { return k != opCreate && k != opCreateDelete }

var openACL = zk.WorldACL(zk.PermAll)

// workload is one run's operation over its own bench root:
//
//	root/k/0000000 ... the -keys znodes read and written by get, set, mix, connect
//	root/seq/n-... persistent sequential znodes made by create
//	root/cd/n-...  sequential znodes made and deleted again by create-delete
type workload struct {
	op             opKind
	mixGet         int // percentage of gets in mix
	data           []byte
	root           string
	keys           []string
	servers        []string
	sessionTimeout time.Duration
}

func newWorkload(o *options, servers []string, root string) *workload {
	w := &workload{
		op:             o.op,
		mixGet:         o.mix,
		data:           make([]byte, o.size),
		root:           root,
		servers:        servers,
		sessionTimeout: o.sessionTimeout,
	}
	for i := range w.data {
		w.data[i] = byte('a' + i%26)
	}
	if o.op.needsKeys() {
		w.keys = make([]string, o.keys)
		for i := range w.keys {
			w.keys[i] = fmt.Sprintf("%s/k/%07d", root, i)
		}
	}
	return w
}

func (w *workload) seqParent() string { return w.root + "/seq" }
func (w *workload) cdParent() string  { return w.root + "/cd" }

// setup creates the bench root, its parents and the keys.
func (w *workload) setup(c *zk.Conn) error {
	for _, p := range []string{w.root, w.root + "/k", w.seqParent(), w.cdParent()} {
		if _, err := c.Create(p, nil, 0, openACL); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	return parallel(len(w.keys), setupWorkers, func(i int) error {
		if _, err := c.Create(w.keys[i], w.data, 0, openACL); err != nil {
			return fmt.Errorf("create %s: %w", w.keys[i], err)
		}
		return nil
	})
}

// do runs one operation on c (connect opens its own session instead).
func (w *workload) do(ctx context.Context, c *zk.Conn, rng *rand.Rand) error {
	switch w.op {
	case opGet:
		_, _, err := c.Get(w.key(rng))
		return err
	case opSet:
		_, err := c.Set(w.key(rng), w.data, -1)
		return err
	case opCreate:
		_, err := c.Create(w.seqParent()+"/n-", w.data, zk.FlagSequence, openACL)
		return err
	case opCreateDelete:
		return w.createDelete(c)
	case opMix:
		if rng.IntN(100) < w.mixGet {
			_, _, err := c.Get(w.key(rng))
			return err
		}
		_, err := c.Set(w.key(rng), w.data, -1)
		return err
	case opConnect:
		return w.connectOnce(ctx, rng)
	}
	return fmt.Errorf("unknown op %d", w.op)
}

func (w *workload) key(rng *rand.Rand) string { return w.keys[rng.IntN(len(w.keys))] }

func (w *workload) createDelete(c *zk.Conn) error {
	p, err := c.Create(w.cdParent()+"/n-", w.data, zk.FlagSequence, openACL)
	if err != nil {
		return err
	}
	return c.Delete(p, -1)
}

// connectOnce opens a session, reads one key and closes the session.
func (w *workload) connectOnce(ctx context.Context, rng *rand.Rand) error {
	s, err := connect(ctx, w.servers, w.sessionTimeout)
	if err != nil {
		return err
	}
	_, _, err = s.Get(w.key(rng))
	s.close()
	return err
}

// cleanup deletes the bench root and everything below it.
func (w *workload) cleanup(c *zk.Conn) error {
	// In an ensemble, c's server must first see the other sessions' writes.
	if _, err := c.Sync(w.root); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("sync %s: %w", w.root, err)
	}
	if err := deleteSequential(c, w.seqParent()); err != nil {
		return err
	}
	parents := []string{w.root + "/k", w.seqParent(), w.cdParent()}
	for _, p := range parents {
		if err := deleteChildren(c, p); err != nil {
			return err
		}
	}
	for _, p := range append(parents, w.root) {
		if err := c.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("delete %s: %w", p, err)
		}
	}
	return nil
}

// deleteSequential deletes the children of a parent that only ever got
// sequential children n-%010d: their numbers run from 0 to the parent's
// cversion, so they are deleted without listing them (a list of millions
// would not fit in one reply).
func deleteSequential(c *zk.Conn, parent string) error {
	ok, st, err := c.Exists(parent)
	if err != nil || !ok {
		return err
	}
	paths := make([]string, st.Cversion)
	for i := range paths {
		paths[i] = fmt.Sprintf("%s/n-%010d", parent, i)
	}
	return deleteAll(c, paths)
}

// deleteChildren deletes the children, all leaves, of parent.
func deleteChildren(c *zk.Conn, parent string) error {
	children, _, err := c.Children(parent)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", parent, err)
	}
	paths := make([]string, len(children))
	for i, ch := range children {
		paths[i] = parent + "/" + ch
	}
	return deleteAll(c, paths)
}

const (
	deleteBatch  = 100 // deletes per multi
	setupWorkers = 16  // concurrent requests while setting up and cleaning up
)

// deleteAll deletes leaf znodes in multis of deleteBatch, several in
// flight; a multi that fails (say, one path is missing) is retried one
// delete at a time, ignoring NONODE.
func deleteAll(c *zk.Conn, paths []string) error {
	batches := (len(paths) + deleteBatch - 1) / deleteBatch
	return parallel(batches, setupWorkers, func(b int) error {
		batch := paths[b*deleteBatch : min((b+1)*deleteBatch, len(paths))]
		ops := make([]any, len(batch))
		for i, p := range batch {
			ops[i] = &zk.DeleteRequest{Path: p, Version: -1}
		}
		if multiOK(c.Multi(ops...)) {
			return nil
		}
		for _, p := range batch {
			if err := c.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
				return fmt.Errorf("delete %s: %w", p, err)
			}
		}
		return nil
	})
}

// multiOK reports whether a multi and every one of its operations succeeded.
func multiOK(res []zk.MultiResponse, err error) bool {
	if err != nil {
		return false
	}
	for _, r := range res {
		if r.Error != nil {
			return false
		}
	}
	return true
}
