package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"time"
)

// Server CPU per operation: on a 2-core machine the load generator and the
// server share the cores, so throughput says as much about the client as
// about the server. The CPU time the server processes spent during the
// measured window, divided by the operations completed in it, is the
// server's own cost per operation, whichever client drives it.

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ,
// 100 on Linux for every architecture Go supports).
const clockTick = 10 * time.Millisecond

// cpuTimes is a process's CPU time so far, in user mode and in the kernel
// (utime and stime, all its threads).
type cpuTimes struct{ user, sys time.Duration }

func (c cpuTimes) total() time.Duration { return c.user + c.sys }

func (c cpuTimes) sub(d cpuTimes) cpuTimes { return cpuTimes{c.user - d.user, c.sys - d.sys} }

// cpuProc is a server process whose CPU a window measures, and the
// srvr Mode of its server at the start of the round ("" if not known).
type cpuProc struct {
	pid  int
	role string
}

// processCPU returns the user plus system CPU time the processes have
// used so far, summed; ok is false if any cannot be read (not Linux, or
// the process is gone).
func processCPU(pids []int) (total time.Duration, ok bool) {
	times, ok := processTimes(pids)
	for _, t := range times {
		total += t.total()
	}
	return total, ok
}

// processTimes returns each process's CPU times so far; ok is false if
// any cannot be read.
func processTimes(pids []int) ([]cpuTimes, bool) {
	if len(pids) == 0 {
		return nil, false
	}
	times := make([]cpuTimes, len(pids))
	for i, pid := range pids {
		t, err := readProcessCPU(pid)
		if err != nil {
			return nil, false
		}
		times[i] = t
	}
	return times, true
}

// readProcessCPU parses utime and stime, fields 14 and 15 of
// /proc/PID/stat. The second field (the command name) is in parentheses
// and may hold spaces, so fields are counted after its closing one.
func readProcessCPU(pid int) (cpuTimes, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuTimes{}, err
	}
	return parseProcStat(b)
}

func parseProcStat(b []byte) (cpuTimes, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return cpuTimes{}, fmt.Errorf("stat %q: no command name", b)
	}
	fields := bytes.Fields(b[i+1:])
	// fields[0] is field 3 (state), so utime (14) is fields[11].
	if len(fields) < 13 {
		return cpuTimes{}, fmt.Errorf("stat: %d fields after the name, want at least 13", len(fields))
	}
	var ticks [2]int64
	for j, f := range fields[11:13] {
		n, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return cpuTimes{}, fmt.Errorf("stat: %w", err)
		}
		ticks[j] = n
	}
	return cpuTimes{user: time.Duration(ticks[0]) * clockTick, sys: time.Duration(ticks[1]) * clockTick}, nil
}

// cpuWindow samples the servers' CPU at the start and end of the
// measured window.
type cpuWindow struct {
	procs      []cpuProc
	start, end []cpuTimes // per process, in the order of procs
	ok         bool
	// The host's CPU totals over the same window (hoststeal.go).
	hostStart, hostEnd hostCPU
	hostOK             bool
}

func (w *cpuWindow) pids() []int {
	pids := make([]int, len(w.procs))
	for i, p := range w.procs {
		pids[i] = p.pid
	}
	return pids
}

// startAt records the CPU used when from comes; it runs in its own
// goroutine while the workers run, and gives up if stop closes first.
func (w *cpuWindow) startAt(from time.Time, stop <-chan struct{}) {
	if !waitUntil(from, stop) {
		return
	}
	w.start, w.ok = processTimes(w.pids())
	var err error
	w.hostStart, err = readHostCPU()
	w.hostOK = err == nil
}

// finish records the CPU used by now, once the workers have stopped (at
// the end of the window); it must run after startAt has returned.
func (w *cpuWindow) finish() {
	if w.hostOK {
		var err error
		w.hostEnd, err = readHostCPU()
		w.hostOK = err == nil
	}
	if w.ok {
		w.end, w.ok = processTimes(w.pids())
	}
}

// stealPercent is the host's CPU steal over the window, or 0 when it was
// not measured.
func (w *cpuWindow) stealPercent() float64 {
	if !w.hostOK {
		return 0
	}
	return stealPercent(w.hostStart, w.hostEnd)
}

// waitUntil waits for t; false if stop closed first.
func waitUntil(t time.Time, stop <-chan struct{}) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-stop:
		return false
	}
}

// perOp returns the server CPU per operation in microseconds, or 0 when
// it was not measured.
func (w *cpuWindow) perOp(ops uint64) float64 {
	if !w.ok || ops == 0 {
		return 0
	}
	var used time.Duration
	for i := range w.start {
		used += w.end[i].sub(w.start[i]).total()
	}
	return perOpMicros(used, ops)
}

func perOpMicros(d time.Duration, ops uint64) float64 {
	return float64(d) / float64(time.Microsecond) / float64(ops)
}

// roleCPU is the CPU per operation of the servers of one role over a
// window: user and system time, summed over the role's servers.
type roleCPU struct {
	Role    string  `json:"role"`
	Servers int     `json:"servers"`
	User    float64 `json:"user_us_per_op"`
	Sys     float64 `json:"sys_us_per_op"`
}

// byRole returns the CPU per operation by the role of the servers'
// processes, in roleOrder, or nil when it was not measured or a process
// has no role.
func (w *cpuWindow) byRole(ops uint64) []roleCPU {
	if !w.ok || ops == 0 {
		return nil
	}
	used := map[string]cpuTimes{}
	servers := map[string]int{}
	for i, p := range w.procs {
		if p.role == "" {
			return nil
		}
		d := w.end[i].sub(w.start[i])
		u := used[p.role]
		used[p.role] = cpuTimes{u.user + d.user, u.sys + d.sys}
		servers[p.role]++
	}
	out := make([]roleCPU, 0, len(used))
	for _, role := range sortRoles(slices.Collect(maps.Keys(used))) {
		u := used[role]
		out = append(out, roleCPU{Role: role, Servers: servers[role],
			User: perOpMicros(u.user, ops), Sys: perOpMicros(u.sys, ops)})
	}
	return out
}

// serverProcs pairs a target's processes with their servers' srvr Modes
// (pids[i] serves addrs[i]); without one pid per address the roles are
// left unknown.
func serverProcs(addrs []string, pids []int, mode modeFunc) []cpuProc {
	procs := make([]cpuProc, len(pids))
	for i, pid := range pids {
		procs[i].pid = pid
	}
	if len(pids) != len(addrs) {
		return procs
	}
	modes := serverModes(addrs, mode)
	for i, a := range addrs {
		procs[i].role = modes[a]
	}
	return procs
}
