package server

import (
	"errors"
	"sync"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// reaper is ZooKeeper's ContainerManager: every check interval the leader
// deletes empty containers and expired TTL nodes through deleteContainer
// transactions, so every replica removes them at the same point in the log.
type reaper struct {
	s       *Server
	mu      sync.Mutex
	timer   session.Timer
	stopped bool
	running sync.WaitGroup // a pass in progress; stop waits for it
}

func newReaper(s *Server) *reaper { return &reaper{s: s} }

func (r *reaper) start() { r.schedule() }

func (r *reaper) schedule() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped || r.s.cfg.ContainerCheckInterval <= 0 {
		return
	}
	r.timer = r.s.clock.AfterFunc(r.s.cfg.ContainerCheckInterval, r.run)
}

// stop cancels the next pass and waits for one in progress.
func (r *reaper) stop() {
	r.mu.Lock()
	r.stopped = true
	if r.timer != nil {
		r.timer.Stop()
	}
	r.mu.Unlock()
	r.running.Wait()
}

// run proposes one deleteContainer per candidate, then schedules the next pass.
func (r *reaper) run() {
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return
	}
	r.running.Add(1)
	r.mu.Unlock()
	defer r.running.Done()
	defer r.schedule()
	var candidates []string
	now := r.s.nowMillis()
	maxNeverUsed := r.s.cfg.ContainerMaxNeverUsed.Milliseconds()
	r.s.node.Read(func(st *consensus.State) {
		candidates = st.Tree.ContainerCandidates(now, maxNeverUsed)
	})
	for _, p := range candidates {
		r.mu.Lock()
		stopped := r.stopped
		r.mu.Unlock()
		if stopped {
			return
		}
		txn := &datatree.Txn{Time: now, Op: wire.OpDeleteContainer, Body: &wire.DeleteContainerRequest{Path: p}}
		cmd := &consensus.Command{Kind: consensus.KindTxn, Txn: txn}
		if _, err := r.s.node.Propose(r.s.life, cmd); err != nil {
			if !errors.Is(err, consensus.ErrDiskFull) { // retried at the next check
				r.s.log.Warn("reaping container failed", "path", p, "err", err)
			}
			return
		}
	}
}
