package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Server CPU per operation by role: where a write's CPU goes, on the
// leader or on the followers, in user code or in the kernel (system calls:
// network, fsync). Each round asks every server's srvr Mode at its start
// and reads utime and stime of every server process at the start and the
// end of the measured window (servercpu.go); the figures are per operation
// completed in the window, summed over the servers of each role.

// cpuRoleMetrics are the figures of a roleCPU that are summarized.
var cpuRoleMetrics = []struct {
	key  string
	name string
	get  func(*roleCPU) float64
}{
	{"user_us_per_op", "user", func(c *roleCPU) float64 { return c.User }},
	{"sys_us_per_op", "sys", func(c *roleCPU) float64 { return c.Sys }},
}

// addCPURoles prints a round's server CPU per operation by role under its
// row.
func (r *reporter) addCPURoles(res *result) {
	if len(res.ServerCPUByRole) == 0 {
		return
	}
	fmt.Fprintf(r.w, "  server CPU/op %s (all %s)\n", cpuRolesLine(res.ServerCPUByRole), fmtMicros(res.ServerCPU))
}

// cpuRolesLine describes the CPU by role: "leader: user 210µs sys 150µs;
// 2 followers: user 80µs sys 60µs".
func cpuRolesLine(cs []roleCPU) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		who := c.Role
		if c.Servers > 1 {
			who = fmt.Sprintf("%d %ss", c.Servers, c.Role)
		}
		parts[i] = fmt.Sprintf("%s: user %s sys %s", who, fmtMicros(c.User), fmtMicros(c.Sys))
	}
	return strings.Join(parts, "; ")
}

func fmtMicros(us float64) string { return latency(us * float64(time.Microsecond)).String() }

// summarizeCPURoles summarizes the user and system CPU per operation of
// each role over the rounds: each target's median and the medians of the
// per-round ratios A/B (A/C ...). Metric is user_us_per_op or
// sys_us_per_op.
func summarizeCPURoles(results []*result) []roleSummaryRow {
	roles := map[string]bool{}
	for _, r := range results {
		for _, c := range r.ServerCPUByRole {
			roles[c.Role] = true
		}
	}
	labels := resultLabels(results)
	var rows []roleSummaryRow
	for _, role := range sortRoles(slices.Collect(maps.Keys(roles))) {
		for _, m := range cpuRoleMetrics {
			v := roundValues{}
			for _, r := range results {
				for i := range r.ServerCPUByRole {
					if c := &r.ServerCPUByRole[i]; c.Role == role {
						v.add(r.Round, r.Target, m.get(c))
					}
				}
			}
			if row, ok := v.summary(m.key, labels); ok {
				rows = append(rows, roleSummaryRow{Role: role, summaryRow: row})
			}
		}
	}
	return rows
}

// finishCPURoles prints the summary of the CPU per operation by role.
func (r *reporter) finishCPURoles() {
	rows := summarizeCPURoles(r.results)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(r.w, "%-19s  %s\n", "CPU/op by role", summaryHeader(r.labels()))
	for _, row := range rows {
		name := row.Metric
		for _, m := range cpuRoleMetrics {
			if m.key == row.Metric {
				name = m.name
			}
		}
		fmt.Fprintf(r.w, "%-19s  %s\n", row.Role+" "+name, summaryCells(row.summaryRow, fmtMicros, true))
	}
	fmt.Fprintln(r.w, "(user and kernel CPU time of the servers of each role, by srvr Mode at the start of the round, summed over them, per operation; /proc/PID/stat counts in 10 ms ticks)")
}
