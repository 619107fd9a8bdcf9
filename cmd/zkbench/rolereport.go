package main

import "fmt"

// addRoles prints a round's per-role rows under its row, and any change
// of a server's Mode during the round.
func (r *reporter) addRoles(res *result) {
	for _, rr := range res.ByRole {
		fmt.Fprintf(r.w, "  %-10s %10.0f %9v %9v %9v %9v %9v %7d  (%d %s, %d %s)\n",
			rr.Role, rr.OpsPerSec, rr.Mean, rr.P50, rr.P99, rr.P999, rr.Max, rr.Errors,
			rr.Servers, plural(rr.Servers, "server"), rr.Sessions, plural(rr.Sessions, "session"))
	}
	if res.ModeChanges != "" {
		fmt.Fprintf(r.w, "      mode changed during the round: %s\n", res.ModeChanges)
	}
}

// finishRoles prints the per-role summary, if the rounds have roles.
func (r *reporter) finishRoles() {
	rows := summarizeRolesAB(r.results)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(r.w, "%-19s  %s\n", "by server role", summaryHeader(r.labels()))
	for _, row := range rows {
		format := func(v float64) string { return roleFmt(row.Metric, v) }
		fmt.Fprintf(r.w, "%-19s  %s\n", row.Role+" "+roleMetricName(row.Metric), summaryCells(row.summaryRow, format, true))
	}
	fmt.Fprintln(r.w, "(a role's figures are those of the sessions on servers whose srvr Mode was that role at the start of the round)")
}

func roleMetricName(key string) string {
	for _, m := range metrics {
		if m.key == key {
			return m.name
		}
	}
	return key
}

func roleFmt(key string, v float64) string {
	for _, m := range metrics {
		if m.key == key {
			return fmtMetric(m, v)
		}
	}
	return fmt.Sprint(v)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
