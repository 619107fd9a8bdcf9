package integration

import (
	"fmt"
	"math/rand"
	"os"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/internal/linearizable"
)

// The soak's linearizability check. An hour of history is too much for
// porcupine at once, so it is cut into one segment per fault period and
// each segment is checked on its own. A cut is safe only where no
// operation is in flight, so at the end of a period the linearizability
// clients finish their current operation and pause; a checker client then
// reads every key (sync, then get) and the pause ends. That read is the
// last operation of the old segment and becomes the first of the new one,
// as an "init" operation that sets the register to what was read.
//
// A write whose connection broke has an unknown outcome and may still take
// effect after the cut (a forwarded proposal can be in flight or sit in a
// log until the next leader commits it). Such operations are therefore
// carried into the next segment too, as operations that may happen at any
// time in it, or never. That only admits more histories, so it cannot
// raise a false alarm; it would miss an unknown write that takes effect
// more than a whole period (and a leader election) late.

// linTotals are the figures of the check for the summary.
type linTotals struct {
	segments, ok, illegal, timedOut int
	ops, unknownOps, carried        int
	maxCheck                        time.Duration
}

// linSeg is one segment's history and the clients recording into it.
type linSeg struct {
	index  int
	h      *linearizable.History
	prefix []porcupine.Operation // init operations and operations carried over
	stop   chan struct{}
	wg     sync.WaitGroup
}

// linClients are the clients kept across segments.
type linClients struct {
	conns   []*zk.Conn
	rngs    []*rand.Rand
	known   []map[string]int32
	checker *zk.Conn
	keys    []string
}

var soakLinCheckTimeout = 2 * time.Minute

// soakLinModel is the register model of package linearizable plus the
// segment's init operation, which sets the register to a read state.
var soakLinModel = func() porcupine.NondeterministicModel {
	m := linearizable.Model
	m.Step = func(s, in, out interface{}) []interface{} {
		i, o := in.(linearizable.Input), out.(linearizable.Output)
		if i.Op == "init" {
			return []interface{}{linearizable.Register{Exists: o.Code == "ok", Value: o.Value, Version: o.Version}}
		}
		return linearizable.Step(s.(linearizable.Register), i, o)
	}
	return m
}()

func (s *soak) startLin() *linSeg {
	lc := &linClients{checker: s.connect()}
	for k := 0; k < soakLinKeys; k++ {
		lc.keys = append(lc.keys, fmt.Sprintf("/soak/lin-%d", k))
	}
	var prefix []porcupine.Operation
	for _, k := range lc.keys {
		prefix = append(prefix, initOp(k, linearizable.Output{Code: "nonode"}))
	}
	for i := 0; i < soakLinClients; i++ {
		lc.conns = append(lc.conns, s.connect())
		lc.rngs = append(lc.rngs, rand.New(rand.NewSource(s.seedFor("lin", i))))
		lc.known = append(lc.known, map[string]int32{})
	}
	s.linClients = lc
	return s.startSeg(0, prefix)
}

func initOp(key string, state linearizable.Output) porcupine.Operation {
	return porcupine.Operation{ClientId: -1, Input: linearizable.Input{Op: "init", Key: key}, Output: state, Call: -2, Return: -1}
}

func (s *soak) startSeg(index int, prefix []porcupine.Operation) *linSeg {
	seg := &linSeg{index: index, h: linearizable.NewHistory(), prefix: prefix, stop: make(chan struct{})}
	for i := range s.linClients.conns {
		seg.wg.Add(1)
		go func(i int) {
			defer seg.wg.Done()
			s.linClient(seg, i)
		}(i)
	}
	return seg
}

// linClient issues random operations on the keys until the segment stops.
func (s *soak) linClient(seg *linSeg, i int) {
	lc := s.linClients
	c, rng, known := lc.conns[i], lc.rngs[i], lc.known[i]
	id := seg.index*soakLinClients + i
	for n := 0; ; n++ {
		select {
		case <-seg.stop:
			return
		default:
		}
		key := lc.keys[rng.Intn(len(lc.keys))]
		in := linearizable.Input{Key: key, Value: fmt.Sprintf("c%d-s%d-%d", i, seg.index, n), Version: -1}
		if v, ok := known[key]; ok && rng.Intn(3) > 0 {
			in.Version = v
		}
		call, t0 := seg.h.Now(), time.Now()
		out, ok := linearizable.StepOn(c, rng, &in, known)
		if !ok {
			s.ops["lin-get"].failed.Add(1)
			continue // a read that did not happen is not recorded
		}
		s.countOp("lin-"+in.Op, out.Code, time.Since(t0))
		seg.h.Add(id, in, call, out)
	}
}

// countOp records a client operation's outcome and latency.
func (s *soak) countOp(kind, code string, d time.Duration) {
	st := s.ops[kind]
	if code == "unknown" {
		st.unknown.Add(1)
		return
	}
	st.ok.Add(1)
	st.lat.add(d)
}

// stopLin ends a segment's clients, waiting at most a minute: an operation
// that hangs longer on a healthy ensemble is a finding.
func (s *soak) stopLin(seg *linSeg) {
	close(seg.stop)
	done := make(chan struct{})
	go func() { seg.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		s.found.add("segment %d: a linearizability client's operation hung for over a minute on a healthy ensemble", seg.index)
	}
}

// cutLin ends the segment, reads the keys, starts the next segment and
// checks the old one.
func (s *soak) cutLin(seg *linSeg, period int) *linSeg {
	s.stopLin(seg)
	var prefix []porcupine.Operation
	startKnown := true
	for _, key := range s.linClients.keys {
		call := seg.h.Now()
		out, ok := s.cutRead(key)
		if !ok {
			s.found.add("segment %d: no definite read of %s within 30s of a healthy ensemble", seg.index, key)
			startKnown = false
			break
		}
		seg.h.Add(-1, linearizable.Input{Op: "get", Key: key}, call, out)
		prefix = append(prefix, initOp(key, out))
	}
	recorded := seg.h.Ops() // a client that hung past stopLin may still add to it
	ops := append(append([]porcupine.Operation(nil), seg.prefix...), recorded...)
	for _, op := range recorded {
		if op.Output.(linearizable.Output).Code == linearizable.Unknown {
			op.Call, op.Return = 0, 1<<62
			prefix = append(prefix, op)
			s.lin.carried++
		}
	}
	if !startKnown {
		// Without the keys' state at the cut the next segment has no known
		// start: it is recorded but not checked, rather than guessed.
		prefix = nil
	}
	next := s.startSeg(seg.index+1, prefix)
	if seg.prefix != nil {
		s.checkSeg(seg.index, period, ops)
	}
	return next
}

// cutRead reads a key with sync then get, retrying until a definite answer.
func (s *soak) cutRead(key string) (linearizable.Output, bool) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var out linearizable.Output
		if _, ok := linearizable.Read(s.linClients.checker, key, &out); ok {
			return out, true
		}
		time.Sleep(50 * time.Millisecond) // the checker's session is reconnecting; retry pace
	}
	return linearizable.Output{}, false
}

func (s *soak) checkSeg(index, period int, ops []porcupine.Operation) {
	t0 := time.Now()
	res, info := porcupine.CheckOperationsVerbose(soakLinModel.ToModel(), ops, soakLinCheckTimeout)
	took := time.Since(t0)
	s.lin.segments++
	s.lin.ops += len(ops)
	s.lin.maxCheck = max(s.lin.maxCheck, took)
	for _, op := range ops {
		if op.Output.(linearizable.Output).Code == linearizable.Unknown {
			s.lin.unknownOps++
		}
	}
	switch res {
	case porcupine.Ok:
		s.lin.ok++
	case porcupine.Unknown:
		s.lin.timedOut++
		s.t.Logf("segment %d (period %d): porcupine gave up after %v on %d operations", index, period, took, len(ops))
	default:
		s.lin.illegal++
		name := fmt.Sprintf("%s/zkraft-soak-seed%d-segment%d.html", os.TempDir(), s.cfg.seed, index)
		if f, err := os.Create(name); err == nil {
			porcupine.Visualize(soakLinModel.ToModel(), info, f)
			f.Close()
		}
		s.found.add("segment %d (period %d, fault %s): history of %d operations is NOT linearizable; visualization %s",
			index, period, faultName(period), len(ops), name)
	}
}
