package lab

import (
	"context"
	"sort"
	"time"

	"github.com/zkraft/zkraft/console"
	"github.com/zkraft/zkraft/internal/faultnet"
)

// startTimeout bounds a restart.
const startTimeout = 20 * time.Second

// index returns id's server index.
func (l *Lab) index(id int64) (int, error) {
	if id < 1 || int(id) > len(l.cfgs) {
		return 0, ErrNoServer
	}
	return int(id - 1), nil
}

// Kill crashes server id: its links die at once and it stops without a
// word to the others, who notice when its heartbeats stop. Its console
// closes just after answering (a kill asked from that very console still
// gets its answer).
func (l *Lab) Kill(id int64) error {
	i, err := l.index(id)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s, a := l.servers[i], l.admins[i]
	if s == nil {
		return ErrStopped
	}
	l.net.Crash(i)
	s.Close()
	l.servers[i], l.admins[i] = nil, nil
	done := make(chan struct{})
	l.closing[i] = done
	go func() {
		defer close(done)
		a.Close()
	}()
	l.opts.Logger.Info("lab: killed", "server", id)
	return nil
}

// Restart starts a killed server again from its data, at its old
// addresses.
func (l *Lab) Restart(id int64) error {
	i, err := l.index(id)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.servers[i] != nil {
		return ErrRunning
	}
	l.net.Revive(i)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := l.start(ctx, i); err != nil {
		return err
	}
	l.opts.Logger.Info("lab: restarted", "server", id)
	return nil
}

// Isolate partitions server id away from every other server (its
// clients still reach it).
func (l *Lab) Isolate(id int64) error {
	i, err := l.index(id)
	if err != nil {
		return err
	}
	var others []int
	for j := range l.cfgs {
		if j != i {
			others = append(others, j)
		}
	}
	l.net.Partition([]int{i}, others)
	l.mu.Lock()
	l.isolated[i] = true
	l.mu.Unlock()
	l.opts.Logger.Info("lab: partitioned away", "server", id)
	return nil
}

// Heal restores every link Isolate cut.
func (l *Lab) Heal() {
	l.net.Heal()
	l.mu.Lock()
	l.isolated = map[int]bool{}
	l.mu.Unlock()
	l.opts.Logger.Info("lab: healed")
}

// SetLink slows the link between servers a and b; zero delay and loss
// clear it.
func (l *Lab) SetLink(a, b int64, delay time.Duration, loss float64) error {
	i, err := l.index(a)
	if err != nil {
		return err
	}
	j, err := l.index(b)
	if err != nil {
		return err
	}
	if i == j {
		return ErrNoServer
	}
	if err := l.net.SetLink(i, j, faultnet.LinkFault{Delay: delay, Loss: loss}); err != nil {
		return ErrBadLink // the only error SetLink returns
	}
	return nil
}

// LabStatus describes the servers, the slowed links and the load.
func (l *Lab) LabStatus() console.LabStatus {
	urls, addrs := l.ConsoleURLs(), l.ClientAddrs()
	st := console.LabStatus{Servers: []console.LabServer{}, Links: []console.LabLink{}}
	l.mu.Lock()
	for i := range l.cfgs {
		ls := console.LabServer{ID: int64(i + 1), Running: l.servers[i] != nil,
			Isolated: l.isolated[i], ClientAddr: addrs[i], ConsoleURL: urls[i]}
		if s := l.servers[i]; s != nil {
			ns := s.Status()
			ns.Followers = nil // the ensemble route has them
			ls.Status = &ns
			ls.SnapshotZxid, _, _ = s.LastSnapshot()
		}
		st.Servers = append(st.Servers, ls)
	}
	st.Members, st.TrailingLogs = l.membersLocked(), trailingLogs
	if w := l.lastWrite; w != nil {
		c := *w
		st.LastWrite = &c
	}
	ld := l.load
	l.mu.Unlock()
	for k, f := range l.net.Links() {
		st.Links = append(st.Links, console.LabLink{A: int64(k[0] + 1), B: int64(k[1] + 1),
			DelayMs: f.Delay.Milliseconds(), Loss: f.Loss})
	}
	sort.Slice(st.Links, func(x, y int) bool {
		return st.Links[x].A < st.Links[y].A || st.Links[x].A == st.Links[y].A && st.Links[x].B < st.Links[y].B
	})
	if ld != nil {
		st.Load = ld.status()
	}
	return st
}
