package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// Leader kills (-kills N with -op lock): at N evenly spaced moments of the
// measured window zkbench finds the ensemble's leader by srvr's Mode,
// kills its process with SIGKILL, starts it again at once on the same
// data and ports, and notes how long the ensemble went without a leader.

// memberControl kills and restarts the servers of an ensemble zkbench
// started as processes; i indexes the target's addrs.
type memberControl interface {
	kill(i int) error
	restart(i int) error
}

// killEvent is one leader kill.
type killEvent struct {
	At     latency `json:"at_us"` // since the window's start
	Server string  `json:"server"`
	// NewLeader is the time from the kill until a server reported Mode
	// leader again (polled every leaderPoll); 0 if none did.
	NewLeader latency `json:"new_leader_after_us"`
	Err       string  `json:"error,omitempty"`
}

const (
	leaderPoll     = 50 * time.Millisecond
	leaderFindWait = 30 * time.Second
)

// killTimes returns the moments of n kills in a window: i/(n+1) of it.
func killTimes(n int, window time.Duration) []time.Duration {
	ts := make([]time.Duration, n)
	for i := range ts {
		ts[i] = window * time.Duration(i+1) / time.Duration(n+1)
	}
	return ts
}

// killLeaders kills the leader at each of times after start.
func killLeaders(ctx context.Context, t *target, start time.Time, times []time.Duration) []killEvent {
	var events []killEvent
	for _, at := range times {
		timer := time.NewTimer(time.Until(start.Add(at)))
		select {
		case <-ctx.Done():
			timer.Stop()
			return events
		case <-timer.C:
		}
		events = append(events, killLeader(ctx, t, start))
	}
	return events
}

// killLeader kills and restarts the current leader.
func killLeader(ctx context.Context, t *target, start time.Time) killEvent {
	i, err := findLeader(ctx, t.addrs, leaderFindWait)
	if err != nil {
		return killEvent{At: latency(time.Since(start)), Err: err.Error()}
	}
	ev := killEvent{Server: t.addrs[i]}
	killed := time.Now()
	ev.At = latency(killed.Sub(start))
	if err := t.members.kill(i); err != nil {
		ev.Err = fmt.Sprintf("kill: %v", err)
		return ev
	}
	if err := t.members.restart(i); err != nil {
		ev.Err = fmt.Sprintf("restart: %v", err)
		return ev
	}
	if _, err := findLeader(ctx, t.addrs, leaderFindWait); err != nil {
		ev.Err = err.Error()
		return ev
	}
	ev.NewLeader = latency(time.Since(killed))
	return ev
}

// findLeader polls srvr on every server until one reports Mode leader and
// returns its index.
func findLeader(ctx context.Context, addrs []string, wait time.Duration) (int, error) {
	deadline := time.Now().Add(wait)
	for {
		for i, a := range addrs {
			if mode, err := realzk.Mode(a, 500*time.Millisecond); err == nil && mode == "leader" {
				return i, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no leader among %v within %v", addrs, wait)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(leaderPoll):
		}
	}
}

// kill SIGKILLs zkserver i and waits for it to exit.
func (z *zkservers) kill(i int) error {
	p := z.procs[i]
	if err := p.cmd.Process.Kill(); err != nil {
		return err
	}
	<-p.done
	return nil
}

// restart runs zkserver i again on its zoo.cfg; the old log is kept as
// zkserver.log.PID.
func (z *zkservers) restart(i int) error {
	old := z.procs[i]
	dir := filepath.Dir(old.logPath)
	cfg, err := os.ReadFile(filepath.Join(dir, "zoo.cfg"))
	if err != nil {
		return err
	}
	return z.rerun(i, cfg)
}

// rerun starts zkserver i again on cfg, in its directory. The old
// process's log is kept as zkserver.log.PID: startProc starts a fresh one.
func (z *zkservers) rerun(i int, cfg []byte) error {
	old := z.procs[i]
	if err := os.Rename(old.logPath, fmt.Sprintf("%s.%d", old.logPath, old.cmd.Process.Pid)); err != nil {
		return err
	}
	p, err := startProc(z.bin, filepath.Dir(old.logPath), cfg, true)
	if err != nil {
		return err
	}
	p.addr = old.addr
	z.procs[i] = p
	return nil
}

// zkEnsembleMembers controls the JVMs of a realzk ensemble.
type zkEnsembleMembers struct {
	e    *realzk.Ensemble
	opts realzk.Options
}

func (m zkEnsembleMembers) kill(i int) error    { return m.e.Kill(i) }
func (m zkEnsembleMembers) restart(i int) error { return m.e.Restart(i, m.opts) }
