package main

import (
	"bytes"
	"fmt"
	"os"
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

// processCPU returns the user plus system CPU time the processes have
// used so far, summed; ok is false if any cannot be read (not Linux, or
// the process is gone).
func processCPU(pids []int) (total time.Duration, ok bool) {
	if len(pids) == 0 {
		return 0, false
	}
	for _, pid := range pids {
		d, err := readProcessCPU(pid)
		if err != nil {
			return 0, false
		}
		total += d
	}
	return total, true
}

// readProcessCPU parses utime and stime, fields 14 and 15 of
// /proc/PID/stat. The second field (the command name) is in parentheses
// and may hold spaces, so fields are counted after its closing one.
func readProcessCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseProcStat(b)
}

func parseProcStat(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat %q: no command name", b)
	}
	fields := bytes.Fields(b[i+1:])
	// fields[0] is field 3 (state), so utime (14) is fields[11].
	if len(fields) < 13 {
		return 0, fmt.Errorf("stat: %d fields after the name, want at least 13", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// cpuWindow samples the servers' CPU at the start and end of the
// measured window.
type cpuWindow struct {
	pids       []int
	start, end time.Duration
	ok         bool
	// The host's CPU totals over the same window (hoststeal.go).
	hostStart, hostEnd hostCPU
	hostOK             bool
}

// startAt records the CPU used when from comes; it runs in its own
// goroutine while the workers run, and gives up if stop closes first.
func (w *cpuWindow) startAt(from time.Time, stop <-chan struct{}) {
	if !waitUntil(from, stop) {
		return
	}
	w.start, w.ok = processCPU(w.pids)
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
		w.end, w.ok = processCPU(w.pids)
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
	return float64(w.end-w.start) / float64(time.Microsecond) / float64(ops)
}
