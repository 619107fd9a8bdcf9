package consensus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/raft"
	wal "github.com/hashicorp/raft-wal"

	"github.com/zkraft/zkraft/metrics"
	"github.com/zkraft/zkraft/wire"
)

// This file keeps a server with a full log disk serving. hashicorp/raft
// steps a leader down whenever its own log append fails, and raft-wal,
// once it could not create its next segment file, refuses every later
// append ("segment is sealed") until it is reopened. A standalone server
// whose disk filled up therefore used to re-elect itself thousands of
// times a minute, and stayed stuck after space came back.
//
// diskGuard sits between Raft and the durable log. When an append fails
// because the log cannot grow, the guard marks the disk full (Propose then
// refuses writes with ErrDiskFull, reads and sessions go on) and, instead
// of returning the error to Raft, waits: every diskProbeInterval it checks
// that a new segment fits (a trial file of that size), reopens raft-wal so
// it starts a fresh segment, and retries the append. When that works the
// disk is no longer full and writes resume by themselves. Only an ensemble
// leader gets the error at once: Raft then steps down and a member with
// room in its log takes over, instead of the whole ensemble waiting for
// this disk; while full, the member waits five times longer than usual
// before it stands for election, so one with room wins. A follower waits
// like a standalone server; its leader keeps committing with the others.

// ErrDiskFull is returned for proposals while this server's log disk is
// full. Clients get ZooKeeper's NOTREADONLY: the server still serves
// reads, but refuses state changes.
var ErrDiskFull = fmt.Errorf("consensus: the log's disk is full; writes are refused until space returns: %w", wire.CodeNotReadOnly)

// fullDiskElectionSlowdown multiplies the election timeouts of an
// ensemble member while its disk is full.
const fullDiskElectionSlowdown = 5

// diskProbeInterval is how often a full log disk is checked for space.
var diskProbeInterval = 500 * time.Millisecond

// segmentSize is raft-wal's default segment file size, the space one more
// segment needs; the probe asks for it plus a margin for the metadata.
const segmentSize = 64 << 20

// probeMargin is room kept beyond a segment for raft-wal's metadata and
// the snapshot store.
const probeMargin = 1 << 20

// probeFileName is the trial file the probe allocates and removes.
const probeFileName = "zkraft-space-probe"

// DiskFaults makes the log disk of a node look full, or slow, for tests.
type DiskFaults struct {
	full  atomic.Bool
	delay atomic.Int64 // ns each append waits first (SetDelay)
	mu    sync.Mutex
	// stalled is non-nil while log appends stall; Resume closes it.
	stalled chan struct{}
}

// SetFull makes every log append fail with ENOSPC (true) or work again.
func (f *DiskFaults) SetFull(full bool) { f.full.Store(full) }

// Stall makes every log append wait until Resume, as a disk that has
// stopped answering for a while.
func (f *DiskFaults) Stall() {
	f.mu.Lock()
	if f.stalled == nil {
		f.stalled = make(chan struct{})
	}
	f.mu.Unlock()
}

// SetDelay makes every log append wait d before it writes, as a slow
// disk (a cloud volume out of burst credits) that costs no CPU; 0 ends it.
func (f *DiskFaults) SetDelay(d time.Duration) { f.delay.Store(int64(d)) }

// Resume lets stalled log appends go on.
func (f *DiskFaults) Resume() {
	f.mu.Lock()
	if f.stalled != nil {
		close(f.stalled)
		f.stalled = nil
	}
	f.mu.Unlock()
}

// wait holds an append while the disk stalls, or until abort closes. It
// reports false if the append was aborted while it stalled: a stalled
// disk whose node stops (or crashes) never writes what it held.
func (f *DiskFaults) wait(abort <-chan struct{}) bool {
	if f == nil {
		return true
	}
	f.mu.Lock()
	ch := f.stalled
	f.mu.Unlock()
	if ch != nil {
		select {
		case <-ch:
		case <-abort:
			return false
		}
	}
	if d := time.Duration(f.delay.Load()); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-abort:
			return false
		}
	}
	return true
}

func (f *DiskFaults) err() error {
	if f != nil && f.full.Load() {
		return fmt.Errorf("injected disk fault: %w", syscall.ENOSPC)
	}
	return nil
}

// DiskState reports a node's log disk.
type DiskState struct {
	// Full is true while writes are refused because the log cannot grow.
	Full bool
	// Since is when the disk was found full (zero when not full).
	Since time.Time
	// Cause is the last error that showed the disk full.
	Cause string
	// Refused counts the proposals refused for a full disk since start.
	Refused int64
}

// diskGuard implements raft.LogStore and raft.StableStore over the
// durable stores (see the comment at the top of this file).
type diskGuard struct {
	mu    sync.RWMutex // store calls hold it shared; a reopen exclusively
	inner *stores      // nil only if a reopen failed after closing the old log

	dir    string                  // the log directory
	need   int64                   // bytes the probe asks for
	reopen func() (*stores, error) // nil when reopening cannot help (raft-boltdb)
	faults *DiskFaults
	// failFast reports whether an append should fail at once rather than
	// wait (an ensemble leader); nil means always wait.
	failFast   func() bool
	standalone bool
	// slowElections, in an ensemble, makes this member stand for election
	// only after a much longer silence while its disk is full (on) and
	// restores its timeouts (off), so a member with room wins the
	// elections its step-down causes.
	slowElections func(on bool)

	// fsyncTime records each append's store-and-sync time (fsynctime);
	// nil when appends are not synced (forceSync=no).
	fsyncTime *metrics.Summary

	full    atomic.Bool
	since   atomic.Int64 // unix nanoseconds
	cause   atomic.Pointer[string]
	refused atomic.Int64

	abortOnce sync.Once
	aborted   chan struct{}

	// onDamage is given to every log the guard opens (see setOnDamage).
	onDamage func(error)
}

// setOnDamage makes fn hear of entries failing their checksum, in the log
// open now and in any the guard reopens.
func (st *stores) setOnDamage(fn func(error)) {
	if g := st.guard; g != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.onDamage = fn
		if g.inner != nil {
			g.inner.setOnDamage(fn)
		}
		return
	}
	if sl, ok := st.logs.(*sumLog); ok {
		sl.onDamage = fn
	}
}

// isDiskFull reports whether err means the log cannot grow.
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, wal.ErrSealed)
}

// isWAL reports whether logs is raft-wal, bare or behind its checksums.
func isWAL(logs raft.LogStore) bool {
	if s, ok := logs.(*sumLog); ok {
		logs = s.inner
	}
	_, ok := logs.(walHead)
	return ok
}

// guardStores puts a diskGuard in front of the durable log and stable
// store st opened in dir; reopen opens them again.
func guardStores(st *stores, dir string, reopen func() (*stores, error), faults *DiskFaults, standalone bool) *stores {
	need := int64(segmentSize + probeMargin)
	if !isWAL(st.logs) {
		// raft-boltdb grows its file a little at a time and recovers from
		// a failed transaction by itself: a retry needs room, not a reopen.
		reopen, need = nil, probeMargin
	}
	g := &diskGuard{inner: st, dir: dir, need: need, reopen: reopen, faults: faults, standalone: standalone, aborted: make(chan struct{})}
	return &stores{logs: g, stable: g, snaps: st.snaps, close: g.close, guard: g}
}

// bindGuard lets the guard of an ensemble member fail a leader's appends
// at once, and slow elections down through slow while the disk is full.
func (st *stores) bindGuard(r *raft.Raft, slow func(on bool)) {
	if st.guard != nil && !st.guard.standalone {
		st.guard.failFast = func() bool { return r.State() == raft.Leader }
		st.guard.slowElections = slow
	}
}

// abortWaits makes an append that waits for space fail now, so Raft can
// shut down, and stops the log's writer: what it had not stored is never
// applied, and the proposals waiting for it fail.
func (st *stores) abortWaits() {
	if st.guard != nil {
		st.guard.abortOnce.Do(func() { close(st.guard.aborted) })
	}
	if st.overlap != nil {
		st.overlap.close()
	}
}

// Halt is the first step of closing: the node stops taking log entries and
// ends every wait on its proposals, so that a server can wait for the
// connections that wait for writes before it calls Close. An append that
// waits for disk space fails now; the log refuses appends, so nothing more
// is applied here; and every proposal still waiting for its local apply
// fails with ErrShutdown, as does any proposal made after Halt. (A
// proposal this follower forwarded and the leader committed would
// otherwise wait for an apply that can no longer come.)
func (n *Node) Halt() {
	n.stores.abortWaits()
	n.fsm.waiters.failAll(ErrShutdown)
}

// diskErr returns ErrDiskFull while the log disk is full.
func (st *stores) diskErr() error {
	if st.guard != nil && st.guard.full.Load() {
		st.guard.refused.Add(1)
		return ErrDiskFull
	}
	return nil
}

// DiskState reports whether this node's log disk is full.
func (n *Node) DiskState() DiskState {
	g := n.stores.guard
	if g == nil {
		return DiskState{}
	}
	d := DiskState{Full: g.full.Load(), Refused: g.refused.Load()}
	if d.Full {
		d.Since = time.Unix(0, g.since.Load())
		if c := g.cause.Load(); c != nil {
			d.Cause = *c
		}
	}
	return d
}

// errLogUnavailable is returned by store calls while a failed reopen left
// no log open; the next probe retries.
var errLogUnavailable = fmt.Errorf("consensus: the log is being reopened after a full disk: %w", syscall.ENOSPC)

// with runs fn on the current stores under the shared lock.
func (g *diskGuard) with(fn func(st *stores) error) error {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.inner == nil {
		return errLogUnavailable
	}
	return fn(g.inner)
}

func (g *diskGuard) storeOnce(logs []*raft.Log) error {
	if !g.faults.wait(g.aborted) {
		return errLogClosed
	}
	if err := g.faults.err(); err != nil {
		return err
	}
	start := time.Now()
	err := g.with(func(st *stores) error { return st.logs.StoreLogs(logs) })
	if err == nil && g.fsyncTime != nil {
		g.fsyncTime.ObserveSince(start)
	}
	return err
}

// StoreLogs implements raft.LogStore; see the top of this file.
func (g *diskGuard) StoreLogs(logs []*raft.Log) error {
	err := g.storeOnce(logs)
	if err == nil {
		// The disk may have been found full by an append that failed at
		// once (a leader's), and have room again by the next one.
		g.leave()
		return nil
	}
	if !isDiskFull(err) {
		return err
	}
	g.enter(err)
	if g.failFast != nil && g.failFast() {
		return err
	}
	tick := time.NewTicker(diskProbeInterval)
	defer tick.Stop()
	for {
		select {
		case <-g.aborted:
			return err
		case <-tick.C:
		}
		if perr := g.repair(); perr != nil {
			g.setCause(perr)
			continue
		}
		if err = g.storeOnce(logs); err == nil {
			g.leave()
			return nil
		}
		if !isDiskFull(err) {
			return err
		}
		g.setCause(err)
	}
}

func (g *diskGuard) enter(err error) {
	// Report what the disk says rather than raft-wal's "segment is
	// sealed", which hides its cause.
	if perr := g.probe(); perr != nil {
		err = perr
	}
	g.setCause(err)
	// Only Raft's one appending goroutine gets here: no race between the
	// check and the stores.
	if !g.full.Load() {
		g.since.Store(time.Now().UnixNano())
		g.full.Store(true)
		if g.slowElections != nil {
			g.slowElections(true)
		}
	}
}

func (g *diskGuard) leave() {
	if g.full.Swap(false) && g.slowElections != nil {
		g.slowElections(false)
	}
}

func (g *diskGuard) setCause(err error) {
	s := err.Error()
	g.cause.Store(&s)
}

// repair checks that a new segment fits, then reopens raft-wal so that it
// starts one (a WAL whose rotation failed never retries it).
func (g *diskGuard) repair() error {
	if err := g.probe(); err != nil {
		return err
	}
	if g.reopen == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inner != nil {
		g.inner.close()
		g.inner = nil
	}
	st, err := g.reopen()
	if err != nil {
		return err
	}
	if g.onDamage != nil {
		st.setOnDamage(g.onDamage)
	}
	g.inner = st
	return nil
}

// probe allocates and removes a trial file the size of a new segment
// (raft-wal) or of probeMargin (raft-boltdb).
func (g *diskGuard) probe() error {
	if err := g.faults.err(); err != nil {
		return err
	}
	path := filepath.Join(g.dir, probeFileName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = allocate(f, g.need)
	f.Close()
	if rerr := os.Remove(path); err == nil && rerr != nil {
		err = rerr
	}
	return err
}

func (g *diskGuard) close() error {
	g.abortOnce.Do(func() { close(g.aborted) })
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.inner == nil {
		return nil
	}
	err := g.inner.close()
	g.inner = nil
	return err
}

// FirstIndex implements raft.LogStore.
func (g *diskGuard) FirstIndex() (i uint64, err error) {
	err = g.with(func(st *stores) (e error) { i, e = st.logs.FirstIndex(); return })
	return
}

// LastIndex implements raft.LogStore.
func (g *diskGuard) LastIndex() (i uint64, err error) {
	err = g.with(func(st *stores) (e error) { i, e = st.logs.LastIndex(); return })
	return
}

// GetLog implements raft.LogStore.
func (g *diskGuard) GetLog(index uint64, log *raft.Log) error {
	return g.with(func(st *stores) error { return st.logs.GetLog(index, log) })
}

// IsMonotonic implements raft.MonotonicLogStore as the guarded log does.
// raft-wal takes no gap in its indexes: once a follower installs a
// snapshot from the leader, Raft must empty the log rather than compact
// it, or the next append (just past the snapshot, beyond the old last
// entry) would be refused for good.
func (g *diskGuard) IsMonotonic() bool {
	mono := false
	_ = g.with(func(st *stores) error {
		m, ok := st.logs.(raft.MonotonicLogStore)
		mono = ok && m.IsMonotonic()
		return nil
	})
	return mono
}

// StoreLog implements raft.LogStore.
func (g *diskGuard) StoreLog(log *raft.Log) error { return g.StoreLogs([]*raft.Log{log}) }

// DeleteRange implements raft.LogStore.
func (g *diskGuard) DeleteRange(lo, hi uint64) error {
	return g.with(func(st *stores) error { return st.logs.DeleteRange(lo, hi) })
}

// Set implements raft.StableStore.
func (g *diskGuard) Set(k, v []byte) error {
	return g.with(func(st *stores) error { return st.stable.Set(k, v) })
}

// Get implements raft.StableStore.
func (g *diskGuard) Get(k []byte) (v []byte, err error) {
	err = g.with(func(st *stores) (e error) { v, e = st.stable.Get(k); return })
	return
}

// SetUint64 implements raft.StableStore.
func (g *diskGuard) SetUint64(k []byte, v uint64) error {
	return g.with(func(st *stores) error { return st.stable.SetUint64(k, v) })
}

// GetUint64 implements raft.StableStore.
func (g *diskGuard) GetUint64(k []byte) (v uint64, err error) {
	err = g.with(func(st *stores) (e error) { v, e = st.stable.GetUint64(k); return })
	return
}
