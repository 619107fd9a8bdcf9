package main

import (
	"errors"
	"os"
	"slices"
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
	if want := (cpuTimes{user: 250 * clockTick, sys: 75 * clockTick}); got != want {
		t.Fatalf("cpu = %+v, want %+v", got, want)
	}
	if got.total() != 325*clockTick {
		t.Fatalf("total = %v, want 3.25s", got.total())
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
	w := &cpuWindow{start: []cpuTimes{{time.Second, 0}}, end: []cpuTimes{{2 * time.Second, time.Second}}, ok: true}
	if got := w.perOp(1000); got != 2000 {
		t.Fatalf("perOp = %v µs, want 2000", got)
	}
	if got := (&cpuWindow{}).perOp(1000); got != 0 {
		t.Fatalf("unmeasured perOp = %v, want 0", got)
	}
}

func TestCPUWindowByRole(t *testing.T) {
	ms := time.Millisecond
	w := &cpuWindow{
		procs: []cpuProc{{11, "follower"}, {12, "leader"}, {13, "follower"}, {14, "observer"}},
		start: []cpuTimes{{100 * ms, 50 * ms}, {0, 0}, {10 * ms, 10 * ms}, {0, 0}},
		end:   []cpuTimes{{300 * ms, 150 * ms}, {400 * ms, 300 * ms}, {110 * ms, 60 * ms}, {20 * ms, 0}},
		ok:    true,
	}
	got := w.byRole(1000)
	want := []roleCPU{
		{Role: "leader", Servers: 1, User: 400, Sys: 300},
		{Role: "follower", Servers: 2, User: 300, Sys: 150},
		{Role: "observer", Servers: 1, User: 20, Sys: 0},
	}
	if !slices.Equal(got, want) {
		t.Errorf("byRole = %+v\nwant     %+v", got, want)
	}
	if total := w.perOp(1000); total != 400+300+300+150+20 {
		t.Errorf("perOp = %v, want the sum of the roles' user and sys, 1170", total)
	}
	if got := w.byRole(0); got != nil {
		t.Errorf("byRole with no ops = %+v, want nil", got)
	}
	w.procs[2].role = ""
	if got := w.byRole(1000); got != nil {
		t.Errorf("byRole with a process of unknown role = %+v, want nil", got)
	}
	if got := (&cpuWindow{}).byRole(1000); got != nil {
		t.Errorf("unmeasured byRole = %+v, want nil", got)
	}
}

func TestServerProcs(t *testing.T) {
	modes := map[string]string{"h:1": "follower", "h:2": "leader"}
	mode := func(addr string) (string, error) {
		if m, ok := modes[addr]; ok {
			return m, nil
		}
		return "", errors.New("refused")
	}
	got := serverProcs([]string{"h:1", "h:2", "h:3"}, []int{7, 8, 9}, mode)
	want := []cpuProc{{7, "follower"}, {8, "leader"}, {9, "not serving"}}
	if !slices.Equal(got, want) {
		t.Errorf("serverProcs = %+v, want %+v", got, want)
	}
	// Without one pid per address the roles are unknown.
	if got := serverProcs([]string{"h:1"}, []int{7, 8}, mode); !slices.Equal(got, []cpuProc{{7, ""}, {8, ""}}) {
		t.Errorf("serverProcs with more pids than addresses = %+v", got)
	}
}

func TestSummarizeCPURoles(t *testing.T) {
	res := func(round int, target string, cs ...roleCPU) *result {
		return &result{Round: round, Target: target, ServerCPUByRole: cs}
	}
	l := func(u, s float64) roleCPU { return roleCPU{Role: "leader", Servers: 1, User: u, Sys: s} }
	f := func(u, s float64) roleCPU { return roleCPU{Role: "follower", Servers: 2, User: u, Sys: s} }
	rows := summarizeCPURoles([]*result{
		res(1, "A", f(100, 50), l(200, 100)), res(1, "B", l(100, 100), f(100, 100)), res(1, "C", l(800, 200), f(400, 100)),
		res(2, "A", l(300, 100), f(100, 50)), res(2, "B", l(100, 50), f(50, 50)), res(2, "C", l(600, 400), f(200, 100)),
	})
	var keys []string
	by := map[string]roleSummaryRow{}
	for _, r := range rows {
		keys = append(keys, r.Role+" "+r.Metric)
		by[r.Role+" "+r.Metric] = r
	}
	if want := []string{"leader user_us_per_op", "leader sys_us_per_op", "follower user_us_per_op", "follower sys_us_per_op"}; !slices.Equal(keys, want) {
		t.Fatalf("rows %v, want %v", keys, want)
	}
	r := by["leader user_us_per_op"]
	if r.A != 250 || r.B != 100 || r.Ratio != 2.5 || len(r.More) != 1 || r.More[0] != (sideSummary{"C", 700, 0.375}) {
		t.Errorf("leader user %+v: want A 250, B 100, A/B 2.5, C 700, A/C median of 0.25 and 0.5", r)
	}
	if r := by["follower sys_us_per_op"]; r.A != 50 || r.B != 75 || r.More[0].Median != 100 || r.More[0].Ratio != 0.5 {
		t.Errorf("follower sys %+v", r)
	}
	if line := cpuRolesLine([]roleCPU{l(210, 150), f(80, 60)}); line != "leader: user 210µs sys 150µs; 2 followers: user 80µs sys 60µs" {
		t.Errorf("cpuRolesLine = %q", line)
	}
}
