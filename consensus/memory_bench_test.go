package consensus

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// The benchmarks in this file measure what a node costs in memory when
// 200,000 znodes of 100 bytes are created through Raft, as issue 6's RSS
// comparison did through a server. Run each in its own process (the RSS
// figures include whatever an earlier benchmark left mapped), on a quiet
// machine:
//
//	go test ./consensus/ -run '^$' -bench 'MemoryInmem' -benchtime 1x
//	go test ./consensus/ -run '^$' -bench 'MemoryDurable' -benchtime 1x
//
// Reported metrics:
//   - live-B/znode: live heap after a full collection, over that of the
//     empty node, divided by the znodes created;
//   - peak-heap-MB: the largest heap in use (objects, live or not yet
//     swept) seen while filling;
//   - peak-rss-MB: the process's peak resident set while filling (VmHWM,
//     reset before the fill); rss-MB the resident set at the end and
//     rss-file-MB its file-backed part (binary, mapped raft-boltdb log);
//   - log-entries: entries the log store holds at the end;
//   - snap-pause-ms: how long one snapshot of the filled tree holds the
//     FSM (no entry is applied meanwhile); snap-peak-heap-MB and
//     snap-peak-rss-MB: the peaks while it is taken and persisted;
//   - snap-stall-ms: the longest a client's create waited while Raft took
//     such a snapshot (Node.Snapshot), and snap-raft-ms how long that took.

const memZnodes = 200_000

// memSession is the session the measured creates belong to, as a client's
// would.
const memSession int64 = 0x0100000000000042

func BenchmarkMemoryInmemStandalone(b *testing.B) {
	for i := 0; i < b.N; i++ {
		measureFill(b, Storage{})
	}
}

func BenchmarkMemoryDurableStandalone(b *testing.B) {
	for i := 0; i < b.N; i++ {
		measureFill(b, Storage{DataDir: b.TempDir(), NoSync: true})
	}
}

// measureFill starts a standalone node with storage st, fills it and
// reports the metrics described above.
func measureFill(b *testing.B, st Storage) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	n, err := Start(ctx, Config{ServerID: 1, Storage: st})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	if _, err := n.Propose(ctx, &Command{Kind: KindCreateSession, Session: memSession, Timeout: 30000, Time: 1}); err != nil {
		b.Fatal(err)
	}
	base := liveHeap()
	debug.FreeOSMemory() // what earlier benchmarks in this process freed
	resetPeakRSS()
	probe := startHeapProbe()
	start := time.Now()
	fillTree(b, n, memZnodes)
	elapsed := time.Since(start)
	peak := probe.stop()
	peakRSS := readProcStatus("VmHWM:")
	live := liveHeap()
	b.ReportMetric(float64(live-base)/memZnodes, "live-B/znode")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peakRSS)/(1<<20), "peak-rss-MB")
	b.ReportMetric(float64(readProcStatus("VmRSS:"))/(1<<20), "rss-MB")
	b.ReportMetric(float64(readProcStatus("RssFile:"))/(1<<20), "rss-file-MB")
	b.ReportMetric(float64(memZnodes)/elapsed.Seconds(), "creates/s")
	b.ReportMetric(float64(logEntries(n)), "log-entries")

	// One snapshot of the full tree, as Raft takes every snapCount
	// entries: how long the FSM is held, and what it adds at the peak.
	resetPeakRSS()
	probe = startHeapProbe()
	t0 := time.Now()
	snap, err := n.fsm.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	pause := time.Since(t0)
	var sink countSink
	if err := snap.Persist(&sink); err != nil {
		b.Fatal(err)
	}
	snap.Release()
	persist := time.Since(t0)
	peak = probe.stop()
	b.ReportMetric(float64(pause.Microseconds())/1000, "snap-pause-ms")
	b.ReportMetric(float64(persist.Microseconds())/1000, "snap-total-ms")
	b.ReportMetric(float64(sink.n)/(1<<20), "snap-MB")
	b.ReportMetric(float64(peak)/(1<<20), "snap-peak-heap-MB")
	b.ReportMetric(float64(readProcStatus("VmHWM:"))/(1<<20), "snap-peak-rss-MB")

	// The same through Raft (into the node's snapshot store, then log
	// compaction) while a client writes one create at a time: the longest
	// such write is the stall clients see.
	stall, took := snapshotUnderWrites(b, n)
	b.ReportMetric(float64(stall.Microseconds())/1000, "snap-stall-ms")
	b.ReportMetric(float64(took.Microseconds())/1000, "snap-raft-ms")
	runtime.KeepAlive(n)
}

// snapshotUnderWrites takes a snapshot with Node.Snapshot while another
// goroutine proposes creates one after another, and returns the longest
// create latency seen meanwhile and how long the snapshot took.
func snapshotUnderWrites(tb testing.TB, n *Node) (stall, took time.Duration) {
	ctx := context.Background()
	stop := make(chan struct{})
	done := make(chan time.Duration)
	started := make(chan struct{})
	go func() {
		var worst time.Duration
		for i := 0; ; i++ {
			t0 := time.Now()
			_, err := n.Propose(ctx, createCmd("/m/stall-"+strconv.Itoa(i)))
			if err != nil {
				tb.Error(err)
			}
			worst = max(worst, time.Since(t0))
			if i == 0 {
				close(started)
			}
			select {
			case <-stop:
				done <- worst
				return
			default:
			}
		}
	}()
	<-started
	t0 := time.Now()
	if err := n.Snapshot(); err != nil {
		tb.Fatal(err)
	}
	took = time.Since(t0)
	close(stop)
	return <-done, took
}

// fillTree creates /m, 200 parents under it and count znodes of 100 bytes
// spread over them (the layout of datatree's bytesPerZnode), keeping many
// proposals in flight as a server with many clients does.
func fillTree(tb testing.TB, n *Node, count int) {
	const inFlight = 512
	var futs [inFlight]*Future
	k := 0
	propose := func(path string) {
		slot := k % inFlight
		if f := futs[slot]; f != nil {
			waitCreated(tb, f)
		}
		futs[slot] = n.ProposeAsync(createCmd(path))
		k++
	}
	propose("/m")
	waitCreated(tb, futs[0])
	futs[0] = nil
	for i := 0; i < 200; i++ {
		propose("/m/p" + strconv.Itoa(i))
	}
	for i := 0; i < count; i++ {
		propose("/m/p" + strconv.Itoa(i%200) + "/node-" + strconv.Itoa(i))
	}
	for _, f := range futs {
		if f != nil {
			waitCreated(tb, f)
		}
	}
}

// createCmd is the command a server proposes for a client's create of
// path with 100 bytes of data (server.prepTxn).
func createCmd(path string) *Command {
	return &Command{Kind: KindTxn, Txn: &datatree.Txn{
		Time: time.Now().UnixMilli(), Session: memSession, Op: wire.OpCreate,
		Body: &wire.CreateRequest{Path: path, Data: bytes.Repeat([]byte{'x'}, 100), ACL: wire.OpenACLUnsafe},
	}}
}

func waitCreated(tb testing.TB, f *Future) {
	a, err := f.Wait()
	if err != nil {
		tb.Fatal(err)
	}
	if a.Result.Err != nil {
		tb.Fatal(a.Result.Err)
	}
}

// logEntries counts the entries the node's log store holds.
func logEntries(n *Node) uint64 {
	first, err1 := n.stores.logs.FirstIndex()
	last, err2 := n.stores.logs.LastIndex()
	if err1 != nil || err2 != nil || last == 0 {
		return 0
	}
	return last - first + 1
}

// liveHeap returns the bytes of live heap objects after full collections.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// heapProbe samples the heap in use every few milliseconds and keeps the
// largest value.
type heapProbe struct {
	done chan struct{}
	wg   sync.WaitGroup
	max  uint64
}

func startHeapProbe() *heapProbe {
	p := &heapProbe{done: make(chan struct{})}
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(samples)
		p.max = max(p.max, samples[0].Value.Uint64())
	}
	read()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				read()
				return
			case <-t.C:
				read()
			}
		}
	}()
	return p
}

// stop ends sampling and returns the peak.
func (p *heapProbe) stop() uint64 {
	close(p.done)
	p.wg.Wait()
	return p.max
}

// resetPeakRSS makes VmHWM start again from the current RSS (Linux).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// readProcStatus returns a "kB" field of /proc/self/status in bytes, or 0.
func readProcStatus(field string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	i := bytes.Index(b, []byte(field))
	if i < 0 {
		return 0
	}
	rest := bytes.Fields(b[i+len(field):])
	if len(rest) == 0 {
		return 0
	}
	kb, _ := strconv.ParseUint(string(rest[0]), 10, 64)
	return kb << 10
}

// countSink is a snapshot sink that only counts what it is given.
type countSink struct{ n int64 }

func (s *countSink) Write(p []byte) (int, error) { s.n += int64(len(p)); return len(p), nil }
func (s *countSink) Close() error                { return nil }
func (s *countSink) ID() string                  { return "count" }
func (s *countSink) Cancel() error               { return nil }
