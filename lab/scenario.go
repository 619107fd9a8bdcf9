package lab

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/console"
)

// The actions the console's guided scenarios use (console.LabScenarioActions):
// client writes through a chosen server, a snapshot now, and reconfig
// -remove / -add.

var _ console.LabScenarioActions = (*Lab)(nil)

// ScenarioPath is the znode the scenarios' writes set.
const ScenarioPath = "/lab-scenario"

// Errors of the scenarios' actions.
var (
	ErrCount    = fmt.Errorf("%w: count must be 1 to %d", console.ErrBadRequest, maxWrites)
	ErrNoLeader = errors.New("lab: no server leads (wait for the election)")
	ErrNoWrite  = errors.New("lab: no write succeeded")
	ErrMember   = errors.New("lab: the server is already a member")
	ErrNotIn    = errors.New("lab: the server is not a member")
)

const (
	// maxWrites bounds one Write: enough to push a follower past the
	// leader's trailing logs in a few calls.
	maxWrites = 5000
	// writers is how many requests one Write keeps in flight, so that
	// the leader batches them as it batches many clients' writes.
	writers = 32
)

// writeTimeout is how long Write waits for count writes: a write through
// a server that serves no clients (it knows no leader) fails after it.
func writeTimeout(count int) time.Duration {
	return 4*time.Second + time.Duration(count)*2*time.Millisecond
}

// Write sets ScenarioPath count times through server id's client port
// alone, keeping several writes in flight: a follower forwards each to
// the leader (ZAB's REQUEST) and answers once it applied it. It returns,
// and keeps for LabStatus, how many succeeded, the last zxid and the
// first error; it fails with ErrNoWrite when none succeeded in time.
func (l *Lab) Write(id int64, count int) (console.LabWrite, error) {
	i, err := l.index(id)
	if err != nil {
		return console.LabWrite{}, err
	}
	if count < 1 || count > maxWrites {
		return console.LabWrite{}, ErrCount
	}
	l.mu.Lock()
	running := l.servers[i] != nil
	l.mu.Unlock()
	if !running {
		return console.LabWrite{}, ErrStopped
	}
	res := console.LabWrite{Server: id, Count: count}
	start := time.Now()
	conn, _, err := zk.Connect([]string{l.ClientAddrs()[i]}, 4*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		return res, err
	}
	var (
		mu       sync.Mutex
		firstErr error
		written  atomic.Int64
		lastZxid atomic.Int64
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := conn.Create(ScenarioPath, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			fail(err)
			return
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(writers, count) {
			wg.Go(func() {
				for {
					n := next.Add(1)
					if n > int64(count) {
						return
					}
					st, err := conn.Set(ScenarioPath, []byte(strconv.FormatInt(n, 10)), -1)
					if err != nil {
						fail(err)
						if errors.Is(err, zk.ErrClosing) {
							return
						}
						continue
					}
					written.Add(1)
					for z := lastZxid.Load(); st.Mzxid > z && !lastZxid.CompareAndSwap(z, st.Mzxid); z = lastZxid.Load() {
					}
				}
			})
		}
		wg.Wait()
	}()
	select {
	case <-done:
	case <-time.After(writeTimeout(count)):
		fail(fmt.Errorf("timed out after %v", writeTimeout(count)))
	}
	conn.Close() // ends the writes still waiting
	<-done
	res.Written = int(written.Load())
	res.Failed = count - res.Written
	res.LastZxid = lastZxid.Load()
	res.ZxidHex = "0x" + strconv.FormatInt(res.LastZxid, 16)
	res.Ms = time.Since(start).Milliseconds()
	if firstErr != nil {
		res.Error = firstErr.Error()
	}
	l.mu.Lock()
	l.lastWrite = &res
	l.mu.Unlock()
	l.opts.Logger.Info("lab: writes", "server", id, "count", count, "written", res.Written, "zxid", res.ZxidHex)
	if res.Written == 0 {
		return res, fmt.Errorf("%w through server %d: %s", ErrNoWrite, id, res.Error)
	}
	return res, nil
}

// Snapshot makes server id take a snapshot now; Raft then compacts its
// log, keeping TrailingLogs entries behind the snapshot. A server with
// nothing new since its last snapshot has nothing to do.
func (l *Lab) Snapshot(id int64) error {
	i, err := l.index(id)
	if err != nil {
		return err
	}
	l.mu.Lock()
	s := l.servers[i]
	l.mu.Unlock()
	if s == nil {
		return ErrStopped
	}
	if err := s.Snapshot(); err != nil && !errors.Is(err, raft.ErrNothingNewToSnapshot) {
		return err
	}
	l.opts.Logger.Info("lab: snapshot", "server", id)
	return nil
}

// Remove takes server id out of the ensemble: reconfig -remove through
// the leader (Raft's RemoveServer; a leader removed hands its leadership
// over first). The removed server stays up and serves nothing.
func (l *Lab) Remove(id int64) error {
	if _, err := l.index(id); err != nil {
		return err
	}
	if !l.isMember(id) {
		return ErrNotIn
	}
	return l.reconfig(id, nil, []string{strconv.FormatInt(id, 10)})
}

// Add takes server id back into the ensemble with its old line and
// client port: reconfig -add through the leader (Raft's AddVoter), which
// first sends it what it missed.
func (l *Lab) Add(id int64) error {
	i, err := l.index(id)
	if err != nil {
		return err
	}
	if l.isMember(id) {
		return ErrMember
	}
	cfg := l.cfgs[i]
	line := fmt.Sprintf("server.%d=%s;%s:%d", id, cfg.Servers[id], cfg.ClientPortAddress, cfg.ClientPort)
	return l.reconfig(id, []string{line}, nil)
}

// reconfig sends an incremental reconfig through the leader's client
// port, as the lab's super user; through another server when the leader
// is the one leaving.
func (l *Lab) reconfig(id int64, joining, leaving []string) error {
	via := l.leader()
	if via == 0 {
		return ErrNoLeader
	}
	conn, _, err := zk.Connect([]string{l.ClientAddrs()[via-1]}, 4*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		return err
	}
	defer conn.Close()
	done := make(chan error, 1)
	go func() {
		if err := conn.AddAuth("digest", []byte(SuperCredentials)); err != nil {
			done <- err
			return
		}
		_, err := conn.IncrementalReconfig(joining, leaving, -1)
		done <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	select {
	case err = <-done:
	case <-ctx.Done():
		err = fmt.Errorf("lab: reconfig through server %d: %w", via, ctx.Err())
	}
	if err != nil && errors.Is(err, zk.ErrConnectionClosed) && len(leaving) > 0 && via == id {
		err = nil // the removed leader closes its clients' connections
	}
	if err != nil {
		return fmt.Errorf("lab: reconfig through server %d: %w", via, err)
	}
	l.opts.Logger.Info("lab: reconfig", "server", id, "joining", joining, "leaving", leaving)
	return nil
}

// leader returns the id of the running server that leads, 0 with none.
func (l *Lab) leader() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, s := range l.servers {
		if s != nil && s.Role() == "leader" {
			return int64(i + 1)
		}
	}
	return 0
}

// membersLocked returns the ids of the Raft membership as the leader
// knows it, or the first running server when none leads; l.mu is held.
func (l *Lab) membersLocked() []int64 {
	from := -1
	for i, s := range l.servers {
		if s == nil {
			continue
		}
		if s.Role() == "leader" {
			from = i
			break
		}
		if from < 0 {
			from = i
		}
	}
	if from < 0 {
		return nil
	}
	var ids []int64
	for _, m := range l.servers[from].Members() {
		ids = append(ids, m.ID)
	}
	return ids
}

// isMember says whether id is in the membership membersLocked reads.
func (l *Lab) isMember(id int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.membersLocked() {
		if m == id {
			return true
		}
	}
	return false
}

// trailingLogs is how many entries Raft keeps behind a snapshot: the
// servers do not change hashicorp/raft's default.
var trailingLogs = raft.DefaultConfig().TrailingLogs
