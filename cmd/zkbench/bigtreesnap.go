package main

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Snapshots are seen from outside, the same way for both servers: a
// snapshot is being written while a snapshot file in the server's data
// directory appears or grows (zkraft: anything under zkraft-snapshots/,
// hashicorp/raft's file snapshot store; ZooKeeper: version-2/snapshot.*).
// A snapshot's span runs from the poll before the first change to the
// last change seen, and it ends once nothing changed for snapQuiet.

const (
	snapPoll  = 20 * time.Millisecond
	snapQuiet = 300 * time.Millisecond
	// snapGrace widens each span on both sides: a server does work for a
	// snapshot before its file appears (zkraft freezes the tree before
	// hashicorp/raft creates the file) and after (the log is compacted),
	// and a write delayed by that counts as delayed by the snapshot.
	snapGrace = time.Second
)

// dataDirOf finds the data directory of the server listening on addr: the
// dataDir line of the zoo.cfg that ends its command line (zkserver and
// ZooKeeper's QuorumPeerMain both take it last).
func dataDirOf(addr string) (string, error) {
	_, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return "", err
	}
	pid, err := listeningPID(port)
	if err != nil {
		return "", fmt.Errorf("server %s: %w", addr, err)
	}
	args, err := procCmdline(pid)
	if err != nil || len(args) == 0 {
		return "", fmt.Errorf("server %s: command line of pid %d: %v", addr, pid, err)
	}
	cfgPath := args[len(args)-1]
	if !filepath.IsAbs(cfgPath) {
		cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		if err != nil {
			return "", err
		}
		cfgPath = filepath.Join(cwd, cfgPath)
	}
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		return "", fmt.Errorf("server %s: %w", addr, err)
	}
	dir := configValue(cfg, "dataDir")
	if dir == "" {
		return "", fmt.Errorf("server %s: no dataDir in %s", addr, cfgPath)
	}
	return dir, nil
}

// snapshotFiles returns the sizes of the snapshot files under dataDir.
func snapshotFiles(dataDir string) map[string]int64 {
	files := map[string]int64{}
	filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil // a file renamed or removed under the walk
		}
		if strings.Contains(path, "zkraft-snapshots") || strings.HasPrefix(d.Name(), "snapshot.") {
			if info, err := d.Info(); err == nil {
				files[path] = info.Size()
			}
		}
		return nil
	})
	return files
}

// snapWatcher records the snapshot spans of each server.
type snapWatcher struct {
	base  time.Time
	dirs  []string
	stop  chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	spans [][]span // per server, finished ones
	open  []*span  // per server, the one being written
}

func watchSnapshots(base time.Time, dirs []string) *snapWatcher {
	w := &snapWatcher{base: base, dirs: dirs, stop: make(chan struct{}), done: make(chan struct{}),
		spans: make([][]span, len(dirs)), open: make([]*span, len(dirs))}
	go w.loop()
	return w
}

func (w *snapWatcher) loop() {
	defer close(w.done)
	prev := make([]map[string]int64, len(w.dirs))
	for i, d := range w.dirs {
		prev[i] = snapshotFiles(d)
	}
	lastPoll := int64(time.Since(w.base))
	tick := time.NewTicker(snapPoll)
	defer tick.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
		now := int64(time.Since(w.base))
		for i, d := range w.dirs {
			files := snapshotFiles(d)
			w.observe(i, changed(prev[i], files), lastPoll, now)
			prev[i] = files
		}
		lastPoll = now
	}
}

// changed reports a new snapshot file or one whose size changed.
func changed(before, after map[string]int64) bool {
	for p, n := range after {
		if m, ok := before[p]; !ok || m != n {
			return true
		}
	}
	return false
}

// observe opens, extends or closes server i's snapshot span.
func (w *snapWatcher) observe(i int, moved bool, lastPoll, now int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sp := w.open[i]
	switch {
	case moved && sp == nil:
		w.open[i] = &span{from: lastPoll, to: now}
	case moved:
		sp.to = now
	case sp != nil && time.Duration(now-sp.to) >= snapQuiet:
		w.spans[i] = append(w.spans[i], *sp)
		w.open[i] = nil
	}
}

// finished returns how many snapshots each server has finished that
// started after from.
func (w *snapWatcher) finished(from int64) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	counts := make([]int, len(w.dirs))
	for i, ss := range w.spans {
		for _, s := range ss {
			if s.from >= from {
				counts[i]++
			}
		}
	}
	return counts
}

// finish stops watching and returns every server's spans, a snapshot
// still being written ending now.
func (w *snapWatcher) finish() [][]span {
	close(w.stop)
	<-w.done
	now := int64(time.Since(w.base))
	for i, sp := range w.open {
		if sp != nil {
			sp.to = now
			w.spans[i] = append(w.spans[i], *sp)
		}
	}
	return w.spans
}

// snapshot runs the writers until every server has written a snapshot
// (and at least -bigtree-window), or -bigtree-snapwait, and compares the
// writes in flight during any server's snapshot with the others.
func (b *bigtree) snapshot(ctx context.Context) error {
	o := b.o
	dirs := make([]string, len(b.t.addrs))
	for i, a := range b.t.addrs {
		d, err := dataDirOf(a)
		if err != nil {
			return err
		}
		dirs[i] = d
	}
	sessions, err := openSessions(ctx, b.t.addrs, o.bigtree.writers, o.sessionTimeout)
	if err != nil {
		return err
	}
	defer closeAll(sessions)
	w := startWriters(sessions, o)
	snaps := watchSnapshots(w.base, dirs)
	all := func() bool {
		if time.Since(w.base) < o.bigtree.window {
			return false
		}
		for _, c := range snaps.finished(0) {
			if c == 0 {
				return false
			}
		}
		return true
	}
	everyone, werr := pollUntil(ctx, o.bigtree.snapWait, 100*time.Millisecond, all)
	spans := snaps.finish()
	writes, errs := w.finish()
	if werr != nil {
		return werr
	}
	b.snapshotFigures(writes, errs, spans, everyone)
	return nil
}

func (b *bigtree) snapshotFigures(writes []opSpan, errs int, spans [][]span, everyone bool) {
	var merged []span
	var longest time.Duration
	count := 0
	grace := int64(snapGrace)
	for _, ss := range spans {
		for _, s := range ss {
			merged = append(merged, span{s.from - grace, s.to + grace})
			longest = max(longest, time.Duration(s.to-s.from))
			count++
		}
	}
	without := statsOf(writes, func(s opSpan) bool { return !s.overlaps(merged) })
	during := statsOf(writes, func(s opSpan) bool { return s.overlaps(merged) })
	r := b.res
	elapsed := time.Duration(0)
	if len(writes) > 0 {
		elapsed = time.Duration(writes[len(writes)-1].end)
	}
	r.add("snap_writes", "snapshot phase: writes", unitCount, float64(len(writes)))
	r.add("snap_writes_per_s", "snapshot phase: write rate", unitRate, float64(len(writes))/elapsed.Seconds())
	r.add("snap_count", "snapshots seen (all servers)", unitCount, float64(count))
	r.addMs("snap_longest_ms", "longest snapshot (file writes)", longest)
	r.addMs("snap_without_p99_ms", "write p99 without snapshot ±1 s", without.p99)
	r.addMs("snap_without_max_ms", "write max without snapshot ±1 s", without.max)
	r.add("snap_during_writes", "writes during a snapshot ±1 s", unitCount, float64(during.n))
	r.addMs("snap_during_p99_ms", "write p99 during snapshot ±1 s", during.p99)
	r.addMs("snap_during_max_ms", "write max during snapshot ±1 s", during.max)
	limit := without.p99 + 10*time.Millisecond
	verdict := "met"
	if during.max > limit {
		verdict = "NOT met"
	}
	r.Notes = append(r.Notes, fmt.Sprintf("snapshot goal (max write during a snapshot %v <= p99 without %v + 10 ms): %s; %d snapshots, %d writes failed",
		during.max.Round(time.Microsecond), without.p99.Round(time.Microsecond), verdict, count, errs))
	if !everyone {
		r.Notes = append(r.Notes, fmt.Sprintf("not every server snapshotted within -bigtree-snapwait (%v)", b.o.bigtree.snapWait))
	}
	if during.n == 0 {
		r.Notes = append(r.Notes, "no write overlapped a snapshot")
	}
	b.progress("snapshot: %d snapshots, longest %v; write p99 %v without, max %v during",
		count, longest.Round(time.Millisecond), without.p99.Round(time.Microsecond), during.max.Round(time.Microsecond))
	if len(writes) > 0 {
		b.progress("slowest writes: %s", slowWrites(writes, spans, 5))
	}
}
