package main

import (
	"os"
	"time"
)

// openCPU measures the CPU that opening sessions costs, on both sides:
// the server processes' and this process's (the go-zookeeper clients'),
// from /proc/PID/stat. Both share the machine's cores, so when the
// client's share is the larger, the time to open the sessions says more
// about the client than about the server.
type openCPU struct {
	pids           []int
	server, client time.Duration
	ok             bool
}

// startOpenCPU reads the starting CPU times of the servers and of zkbench.
func startOpenCPU(pids []int) *openCPU {
	c := &openCPU{pids: pids}
	var okS, okC bool
	c.server, okS = processCPU(pids)
	c.client, okC = processCPU([]int{os.Getpid()})
	c.ok = okS && okC && len(pids) > 0
	return c
}

// since returns the CPU used since startOpenCPU by the servers and by
// zkbench; ok is false when either could not be read (not Linux, a
// server in this process, or a process gone).
func (c *openCPU) since() (server, client time.Duration, ok bool) {
	s, okS := processCPU(c.pids)
	cl, okC := processCPU([]int{os.Getpid()})
	if !c.ok || !okS || !okC {
		return 0, 0, false
	}
	return s - c.server, cl - c.client, true
}

// pids returns the server processes whose memory m reads.
func (m *procMem) pids() []int {
	if m.inProcess {
		return nil
	}
	pids := make([]int, 0, len(m.procs))
	for _, p := range m.procs {
		pids = append(pids, p.pid)
	}
	return pids
}
