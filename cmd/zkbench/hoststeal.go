package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Host steal: on a virtual machine the hypervisor may run other guests on
// this machine's cores, and the time they take shows as "steal" in
// /proc/stat. A round measured while a quarter of the CPU was stolen says
// little about either server, so each round reports the share of the
// machine's CPU time stolen during its measured window.

// hostCPU is the cumulative CPU time of all cores, in clock ticks.
type hostCPU struct{ steal, total uint64 }

// readHostCPU reads the "cpu" line of /proc/stat.
func readHostCPU() (hostCPU, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return hostCPU{}, err
	}
	return parseHostCPU(b)
}

// parseHostCPU parses the first line of /proc/stat: "cpu" then user, nice,
// system, idle, iowait, irq, softirq, steal (and guest times, which user
// and nice already include).
func parseHostCPU(b []byte) (hostCPU, error) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	fields := bytes.Fields(line)
	if len(fields) < 9 || string(fields[0]) != "cpu" {
		return hostCPU{}, fmt.Errorf("/proc/stat: first line %q is not the cpu total", line)
	}
	var h hostCPU
	for i, f := range fields[1:9] {
		n, err := strconv.ParseUint(string(f), 10, 64)
		if err != nil {
			return hostCPU{}, fmt.Errorf("/proc/stat: %w", err)
		}
		h.total += n
		if i == 7 {
			h.steal = n
		}
	}
	return h, nil
}

// stealPercent is the share of CPU time stolen between a and b, in percent
// (0 when nothing elapsed).
func stealPercent(a, b hostCPU) float64 {
	if b.total <= a.total {
		return 0
	}
	return 100 * float64(b.steal-a.steal) / float64(b.total-a.total)
}
