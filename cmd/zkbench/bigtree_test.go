package main

import (
	"reflect"
	"testing"
	"time"
)

func TestParsePhases(t *testing.T) {
	got, err := parsePhases("memory, restart")
	if err != nil {
		t.Fatal(err)
	}
	if !got[phaseFill] || !got[phaseMemory] || !got[phaseRestart] || got[phaseSnapshot] || got[phaseCatchup] {
		t.Fatalf("phases %v: want fill (always), memory and restart only", got)
	}
	if _, err := parsePhases("fill,backup"); err == nil {
		t.Fatal("an unknown phase was accepted")
	}
}

func TestBigtreeNodeSpreadsOverParents(t *testing.T) {
	if got := bigtreeNode(0, 1000); got != "/bigtree/p0000/n0000000" {
		t.Fatalf("node 0: %s", got)
	}
	if got := bigtreeNode(1001, 1000); got != "/bigtree/p0001/n0000001" {
		t.Fatalf("node 1001: %s", got)
	}
}

func TestStatsOfSplitsBySnapshotSpans(t *testing.T) {
	ms := int64(time.Millisecond)
	spans := []span{{from: 101 * ms, to: 200 * ms}}
	var writes []opSpan
	for i := int64(0); i < 100; i++ { // 1 ms writes from 0 to 99 ms
		writes = append(writes, opSpan{i * ms, i*ms + ms})
	}
	writes = append(writes, opSpan{150 * ms, 190 * ms}, opSpan{90 * ms, 102 * ms})
	without := statsOf(writes, func(s opSpan) bool { return !s.overlaps(spans) })
	during := statsOf(writes, func(s opSpan) bool { return s.overlaps(spans) })
	if without.n != 100 || without.max != time.Millisecond {
		t.Fatalf("without: %+v", without)
	}
	if during.n != 2 || during.max != 40*time.Millisecond {
		t.Fatalf("during: %+v", during)
	}
}

func TestSnapWatcherSpans(t *testing.T) {
	w := &snapWatcher{dirs: []string{"a"}, spans: make([][]span, 1), open: make([]*span, 1)}
	ms := int64(time.Millisecond)
	w.observe(0, false, 0, 20*ms)
	w.observe(0, true, 20*ms, 40*ms) // the file appears: the span starts at the poll before
	w.observe(0, true, 40*ms, 60*ms)
	w.observe(0, false, 60*ms, 80*ms)   // quiet, but not for snapQuiet yet
	w.observe(0, false, 80*ms, 1000*ms) // quiet long enough: finished
	if got := w.finished(0); got[0] != 1 {
		t.Fatalf("finished %v, want one snapshot", got)
	}
	if got := w.spans[0][0]; got != (span{20 * ms, 60 * ms}) {
		t.Fatalf("span %+v, want 20-60 ms", got)
	}
}

func TestChangedSeesNewAndGrowingFiles(t *testing.T) {
	before := map[string]int64{"s.1": 10}
	if changed(before, map[string]int64{"s.1": 10}) {
		t.Fatal("no change reported as one")
	}
	if !changed(before, map[string]int64{"s.1": 11}) || !changed(before, map[string]int64{"s.1": 10, "s.2": 0}) {
		t.Fatal("a growing or new file not seen")
	}
	if changed(before, map[string]int64{}) {
		t.Fatal("a removed file (an old snapshot purged) counted as a snapshot")
	}
}

// TestMntrValues reads mntr's numeric lines by key and skips the others.
func TestMntrValues(t *testing.T) {
	got := mntrValues("zk_version\t3.8.4-abc\nzk_max_startup_txns_loaded\t3023\nzk_avg_latency\t0.5\nno tab here\n")
	want := map[string]float64{"zk_max_startup_txns_loaded": 3023, "zk_avg_latency": 0.5}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mntrValues = %v, want %v", got, want)
	}
}
