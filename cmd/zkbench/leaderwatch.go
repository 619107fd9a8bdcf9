package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// A leaderWatch polls srvr on every server of an ensemble while a round
// runs and counts leader changes: the leader's address changing, and
// elections, seen as the epoch (a zxid's upper 32 bits: ZooKeeper's epoch,
// zkraft's raft term) of the newest zxid any server reports going up. It
// is how a run shows that a healthy but loaded ensemble held no election.
type leaderWatch struct {
	addrs []string
	every time.Duration
	stop  chan struct{}
	done  chan struct{}

	mu        sync.Mutex
	leader    string // the last leader seen
	epoch     int64  // the highest epoch seen, -1 before the first
	changes   int    // leader address changes
	elections int    // epoch increases
}

// leaderChanges are what a leaderWatch saw.
type leaderChanges struct {
	LeaderChanges int `json:"leader_changes"`
	Elections     int `json:"elections"` // epoch increases
}

// watchLeaders starts polling addrs every interval.
func watchLeaders(addrs []string, every time.Duration) *leaderWatch {
	w := &leaderWatch{addrs: addrs, every: every, epoch: -1, stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w
}

func (w *leaderWatch) loop() {
	defer close(w.done)
	tick := time.NewTicker(w.every)
	defer tick.Stop()
	for {
		w.poll()
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
	}
}

// poll asks every server once.
func (w *leaderWatch) poll() {
	leader := ""
	var epoch int64 = -1
	for _, a := range w.addrs {
		out, err := realzk.FourLetterWord(a, "srvr", time.Second)
		if err != nil {
			continue
		}
		mode, zxid, ok := parseSrvr(out)
		if !ok {
			continue
		}
		if mode == "leader" {
			leader = a
		}
		epoch = max(epoch, zxid>>32)
	}
	w.observe(leader, epoch)
}

// observe counts a change of leader (ignoring polls that saw none) and an
// increase of the epoch (ignoring polls that saw no server, and the
// first write of a fresh ensemble).
func (w *leaderWatch) observe(leader string, epoch int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if leader != "" {
		if w.leader != "" && leader != w.leader {
			w.changes++
		}
		w.leader = leader
	}
	if epoch >= 0 {
		// Epoch 0 is a server that has applied no write yet (zkraft's
		// zxid carries the term of the last write applied, so it moves
		// to the new term only with the first write after an election).
		if w.epoch > 0 && epoch > w.epoch {
			w.elections++
		}
		w.epoch = max(w.epoch, epoch)
	}
}

// finish stops polling and returns the counts.
func (w *leaderWatch) finish() leaderChanges {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return leaderChanges{LeaderChanges: w.changes, Elections: w.elections}
}

// parseSrvr returns srvr's Mode and Zxid.
func parseSrvr(out string) (mode string, zxid int64, ok bool) {
	var haveMode, haveZxid bool
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if v, found := strings.CutPrefix(line, "Mode: "); found {
			mode, haveMode = v, true
		}
		if v, found := strings.CutPrefix(line, "Zxid: "); found {
			n, err := strconv.ParseInt(strings.TrimPrefix(v, "0x"), 16, 64)
			if err == nil {
				zxid, haveZxid = n, true
			}
		}
	}
	return mode, zxid, haveMode && haveZxid
}

// watchRound starts a leaderWatch over addrs when -leaderwatch is on; the
// function it returns stops it and puts its counts into res (if not nil).
func watchRound(o *options, addrs []string) func(res *result) {
	if !o.leaderWatch {
		return func(*result) {}
	}
	w := watchLeaders(addrs, leaderWatchEvery)
	return func(res *result) {
		c := w.finish()
		if res != nil {
			res.Leader = &c
		}
	}
}

// leaderWatchEvery is -leaderwatch's polling interval; an election missed
// between two polls still shows as an epoch increase.
const leaderWatchEvery = 500 * time.Millisecond

// reportLeader prints what -leaderwatch saw, if it ran.
func reportLeader(w io.Writer, c *leaderChanges) {
	if c != nil {
		fmt.Fprintf(w, "      leader changes %d, elections %d\n", c.LeaderChanges, c.Elections)
	}
}
