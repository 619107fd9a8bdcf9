package consensus

import (
	"context"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

var treeCfgDefault = datatree.Config{}

// BenchmarkSnapshotStall1M measures what a snapshot of a 1,000,000-znode
// tree (100 bytes each, 200 parents of 5,000 children under /m) costs the
// clients of a standalone in-memory node: Raft takes the snapshot
// (Node.Snapshot) while one client proposes creates one after another and
// two read a random znode every millisecond (a tight read loop would only
// take CPU from the snapshot on a small machine). Run it alone, in its own process:
//
//	go test ./consensus/ -run '^$' -bench SnapshotStall1M -benchtime 1x -timeout 30m
//
// Reported: snap-write-stall-ms, the longest create; snap-read-stall-ms,
// the longest read; write-p99-ms, the 99th percentile of the creates
// during the snapshot; snap-raft-ms, how long Node.Snapshot took;
// base-write-max-ms and base-read-max-ms, the longest create and read over
// the same time without a snapshot (the machine's own noise).
func BenchmarkSnapshotStall1M(b *testing.B) {
	for i := 0; i < b.N; i++ {
		measureSnapshotStall(b, 1_000_000)
	}
}

func measureSnapshotStall(b *testing.B, count int) {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	n, err := Start(ctx, Config{ServerID: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	if _, err := n.Propose(ctx, &Command{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1}); err != nil {
		b.Fatal(err)
	}
	fillTree(b, n, count)
	runtime.GC()

	// The same load for as long, without a snapshot, then with one.
	var took time.Duration
	base := underLoad(b, n, count, func() { time.Sleep(2 * time.Second) })
	snap := underLoad(b, n, count, func() {
		t0 := time.Now()
		if err := n.Snapshot(); err != nil {
			b.Fatal(err)
		}
		took = time.Since(t0)
	})
	b.ReportMetric(ms(snap.writeMax), "snap-write-stall-ms")
	b.ReportMetric(ms(snap.readMax), "snap-read-stall-ms")
	b.ReportMetric(ms(snap.writeP99), "write-p99-ms")
	b.ReportMetric(ms(took), "snap-raft-ms")
	b.ReportMetric(ms(base.writeMax), "base-write-max-ms")
	b.ReportMetric(ms(base.readMax), "base-read-max-ms")
	b.ReportMetric(float64(snap.writes), "writes-during")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// loadResult is what underLoad saw.
type loadResult struct {
	writeMax, writeP99, readMax time.Duration
	writes                      int
}

// underLoad runs fn while one writer proposes creates one at a time and
// two readers read a znode every millisecond, and returns the latencies seen meanwhile.
func underLoad(tb testing.TB, n *Node, count int, fn func()) loadResult {
	ctx := context.Background()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var res loadResult
	var lats []time.Duration
	started := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			t0 := time.Now()
			if _, err := n.Propose(ctx, createCmd("/m/load-"+strconv.Itoa(i)+"-"+strconv.FormatInt(t0.UnixNano(), 36))); err != nil {
				tb.Error(err)
				return
			}
			lats = append(lats, time.Since(t0))
			if i == 0 {
				close(started)
			}
		}
	}()
	readMax := make([]time.Duration, 2)
	for r := range readMax {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := r; !stop.Load(); i += 7919 {
				k := i % count
				path := "/m/p" + strconv.Itoa(k%200) + "/node-" + strconv.Itoa(k)
				t0 := time.Now()
				n.Read(func(st *State) { _, _, _ = st.Tree.GetData(path) })
				readMax[r] = max(readMax[r], time.Since(t0))
				time.Sleep(time.Millisecond)
			}
		}()
	}
	<-started
	fn()
	stop.Store(true)
	wg.Wait()
	for _, l := range lats {
		res.writeMax = max(res.writeMax, l)
	}
	res.writes = len(lats)
	if len(lats) > 0 {
		sorted := append([]time.Duration(nil), lats...)
		slices.Sort(sorted)
		res.writeP99 = sorted[len(sorted)*99/100]
	}
	for _, m := range readMax {
		res.readMax = max(res.readMax, m)
	}
	return res
}

// BenchmarkSnapshotHold1M measures, on an FSM alone (no Raft, no other
// load from the benchmark), how long a snapshot of the same
// 1,000,000-znode tree keeps entries from being applied: snap-pause-ms is
// Snapshot (the FSM lock held throughout), walk-max-hold-ms the longest
// hold of the read lock by one step of Persist's walk, walk-steps their
// number, walk-p999-hold-ms the 99.9th percentile of those holds and
// walk-holds>10ms how many lasted longer than 10 ms,
// walk-max-hold-cpu-ms the most CPU time the thread spent in one hold
// (the work a step does, without the time it waited for a CPU), persist-ms the whole
// of Persist. On a loaded machine the longest hold includes the time the
// thread holding it was not scheduled.
//
//	go test ./consensus/ -run '^$' -bench SnapshotHold1M -benchtime 1x -timeout 30m
func BenchmarkSnapshotHold1M(b *testing.B) {
	for i := 0; i < b.N; i++ {
		f := newFSM(treeCfgDefault, nil, 1)
		applyAll(f, fillLogs(1_000_000))
		runtime.GC()
		t0 := time.Now()
		snap, err := f.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		pause := time.Since(t0)
		lock := &timingLock{inner: f.mu.RLocker()}
		snap.(*snapshot).lock = lock
		var sink countSink
		runtime.LockOSThread() // so that the thread's CPU time is the walk's
		t0 = time.Now()
		if err := snap.Persist(&sink); err != nil {
			b.Fatal(err)
		}
		runtime.UnlockOSThread()
		b.ReportMetric(ms(lock.maxCPU), "walk-max-hold-cpu-ms")
		b.ReportMetric(ms(time.Since(t0)), "persist-ms")
		snap.Release()
		b.ReportMetric(ms(pause), "snap-pause-ms")
		b.ReportMetric(ms(lock.max), "walk-max-hold-ms")
		b.ReportMetric(float64(lock.steps), "walk-steps")
		slices.Sort(lock.holds)
		b.ReportMetric(ms(lock.holds[len(lock.holds)*999/1000]), "walk-p999-hold-ms")
		long := 0
		for _, h := range lock.holds {
			if h > 10*time.Millisecond {
				long++
			}
		}
		b.ReportMetric(float64(long), "walk-holds>10ms")
	}
}

// timingLock records how long its lock was held each time.
type timingLock struct {
	inner sync.Locker
	at    time.Time
	max   time.Duration
	steps int
	holds []time.Duration
	// cpuAt and maxCPU are the same in the thread's CPU time, which
	// leaves out the time the machine ran other threads.
	cpuAt  time.Duration
	maxCPU time.Duration
}

func (l *timingLock) Lock() { l.inner.Lock(); l.at, l.cpuAt = time.Now(), threadCPU(); l.steps++ }
func (l *timingLock) Unlock() {
	d := time.Since(l.at)
	l.max = max(l.max, d)
	l.maxCPU = max(l.maxCPU, threadCPU()-l.cpuAt)
	l.holds = append(l.holds, d)
	l.inner.Unlock()
}

// fillLogs is the log fillTree proposes: a session, /m, 200 parents and
// count znodes of 100 bytes spread over them.
func fillLogs(count int) []*raft.Log {
	cmds := []*Command{{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1}, createCmd("/m")}
	for i := 0; i < 200; i++ {
		cmds = append(cmds, createCmd("/m/p"+strconv.Itoa(i)))
	}
	for i := 0; i < count; i++ {
		cmds = append(cmds, createCmd("/m/p"+strconv.Itoa(i%200)+"/node-"+strconv.Itoa(i)))
	}
	logs := make([]*raft.Log, len(cmds))
	for i, cmd := range cmds {
		var e wire.Encoder
		cmd.Encode(&e)
		logs[i] = &raft.Log{Index: uint64(i + 1), Term: 2, Type: raft.LogCommand, Data: e.Bytes()}
	}
	return logs
}
