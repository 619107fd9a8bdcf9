package main

import (
	"os"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	// A command name with spaces and a parenthesis, as the kernel allows.
	stat := "4242 (zk server (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 9 0 123 456 789\n"
	got, err := parseProcStat([]byte(stat))
	if err != nil {
		t.Fatal(err)
	}
	if want := 325 * clockTick; got != want {
		t.Fatalf("cpu = %v, want %v", got, want)
	}
	if _, err := parseProcStat([]byte("4242 (short) S 1 2")); err == nil {
		t.Fatal("a truncated stat line parsed")
	}
}

func TestProcessCPUOfThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	if _, ok := processCPU([]int{os.Getpid()}); !ok {
		t.Fatal("cannot read this process's CPU time")
	}
	if _, ok := processCPU(nil); ok {
		t.Fatal("no pids should mean not measured")
	}
}

func TestCPUWindowPerOp(t *testing.T) {
	w := &cpuWindow{start: time.Second, end: 3 * time.Second, ok: true}
	if got := w.perOp(1000); got != 2000 {
		t.Fatalf("perOp = %v µs, want 2000", got)
	}
	if got := (&cpuWindow{}).perOp(1000); got != 0 {
		t.Fatalf("unmeasured perOp = %v, want 0", got)
	}
}
