package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// Per-server-role figures: in an ensemble the sessions are spread over the
// servers in turn (session i starts on server i mod n), each session's
// server is asked for its srvr Mode at the start of the round, and the
// latency figures are also given for the sessions on the leader, on the
// followers and on the observers.

// roleOrder is the order in which roles are reported.
var roleOrder = []string{"standalone", "leader", "follower", "observer"}

func roleRank(role string) int {
	if i := slices.Index(roleOrder, role); i >= 0 {
		return i
	}
	return len(roleOrder)
}

// roleResult is the figures of the sessions on servers of one role.
type roleResult struct {
	Role      string  `json:"role"`
	Servers   int     `json:"servers"`
	Sessions  int     `json:"sessions"`
	Ops       uint64  `json:"ops"`
	Errors    uint64  `json:"errors"`
	OpsPerSec float64 `json:"ops_per_sec"`
	Mean      latency `json:"mean_us"`
	P50       latency `json:"p50_us"`
	P99       latency `json:"p99_us"`
	P999      latency `json:"p999_us"`
	Max       latency `json:"max_us"`
}

// orderedHosts is a go-zookeeper HostProvider that tries servers in the
// order given, starting at servers[first mod len], instead of in a random
// order, so that sessions opened with first = 0, 1, 2, ... are spread
// evenly; a session whose server fails still moves on to the next one.
// (zk.Connect hands Init a shuffled copy of the list, which it ignores.)
type orderedHosts struct {
	mu      sync.Mutex
	servers []string
	first   int
	next    int // index into servers of the next server to try
	tried   int // servers tried since the last connection
}

func (h *orderedHosts) Init([]string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.servers) == 0 {
		return fmt.Errorf("no servers")
	}
	h.next = h.first % len(h.servers)
	return nil
}

func (h *orderedHosts) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.servers)
}

func (h *orderedHosts) Next() (server string, retryStart bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	server = h.servers[h.next]
	h.next = (h.next + 1) % len(h.servers)
	retryStart = h.tried >= len(h.servers)
	if retryStart {
		h.tried = 0
	}
	h.tried++
	return server, retryStart
}

func (h *orderedHosts) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tried = 0
}

// modeFunc asks a server for its srvr Mode.
type modeFunc func(addr string) (string, error)

func srvrMode(addr string) (string, error) { return realzk.Mode(addr, 2*time.Second) }

// serverModes returns the Mode of each distinct server in addrs ("not
// serving" when it does not answer).
func serverModes(addrs []string, mode modeFunc) map[string]string {
	modes := make(map[string]string, len(addrs))
	for _, a := range addrs {
		if _, done := modes[a]; done {
			continue
		}
		m, err := mode(a)
		if err != nil {
			m = "not serving"
		}
		modes[a] = m
	}
	return modes
}

// assignRoles sets each session's server and that server's role, by one
// srvr per server, and returns the modes it saw (for modeChanges).
func assignRoles(sessions []*session, mode modeFunc) map[string]string {
	addrs := make([]string, len(sessions))
	for i, s := range sessions {
		addrs[i] = s.Server()
	}
	modes := serverModes(addrs, mode)
	for i, s := range sessions {
		s.server, s.role = addrs[i], modes[addrs[i]]
	}
	return modes
}

// modeChanges describes the servers whose Mode is no longer what it was
// at the start of the round ("" when none changed): an election during
// the round makes its per-role figures meaningless.
func modeChanges(before map[string]string, mode modeFunc) string {
	var addrs []string
	for a := range before {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	after := serverModes(addrs, mode)
	var changes []string
	for _, a := range addrs {
		if after[a] != before[a] {
			changes = append(changes, fmt.Sprintf("%s %s→%s", a, before[a], after[a]))
		}
	}
	return strings.Join(changes, ", ")
}

// summarizeRoles merges the workers' figures by the role of their
// session's server; nil when no worker has a role.
func summarizeRoles(workers []*worker, elapsed time.Duration) []roleResult {
	type group struct {
		hist     *histogram
		errors   uint64
		servers  map[string]bool
		sessions map[*session]bool
	}
	groups := map[string]*group{}
	for _, wk := range workers {
		if wk.sess == nil || wk.sess.role == "" {
			continue
		}
		g := groups[wk.sess.role]
		if g == nil {
			g = &group{hist: newHistogram(), servers: map[string]bool{}, sessions: map[*session]bool{}}
			groups[wk.sess.role] = g
		}
		g.hist.merge(wk.hist)
		g.errors += wk.errors
		g.servers[wk.sess.server] = true
		g.sessions[wk.sess] = true
	}
	var out []roleResult
	for role, g := range groups {
		h := g.hist
		out = append(out, roleResult{Role: role, Servers: len(g.servers), Sessions: len(g.sessions),
			Ops: h.count(), Errors: g.errors, OpsPerSec: float64(h.count()) / elapsed.Seconds(),
			Mean: latency(h.mean()), P50: latency(h.percentile(50)), P99: latency(h.percentile(99)),
			P999: latency(h.percentile(99.9)), Max: latency(h.maximum())})
	}
	slices.SortFunc(out, func(a, b roleResult) int { return compareRoles(a.Role, b.Role) })
	return out
}

// roleMetrics are the per-role figures compared between A and B.
var roleMetrics = []struct {
	key string
	get func(*roleResult) float64
}{
	{"ops_per_sec", func(r *roleResult) float64 { return r.OpsPerSec }},
	{"p50_us", func(r *roleResult) float64 { return r.P50.micros() }},
	{"p99_us", func(r *roleResult) float64 { return r.P99.micros() }},
}

// roleSummaryRow is one per-role metric across the rounds of A and B, as
// summaryRow; Metric is "role metric", e.g. "follower p50_us".
type roleSummaryRow struct {
	Role string `json:"role"`
	summaryRow
}

// summarizeRolesAB pairs A's and B's (and more targets') per-role figures
// round by round, for the roles they have in a round: the median of each
// side and of the per-round ratios A/B (A/C ...).
func summarizeRolesAB(results []*result) []roleSummaryRow {
	byRole := map[string][]*result{}
	for _, r := range results {
		for i := range r.ByRole {
			role := r.ByRole[i].Role
			byRole[role] = append(byRole[role], r)
		}
	}
	labels := resultLabels(results)
	var rows []roleSummaryRow
	for _, role := range sortRoles(slices.Collect(maps.Keys(byRole))) {
		for _, m := range roleMetrics {
			v := roundValues{}
			for _, r := range byRole[role] {
				for i := range r.ByRole {
					if rr := &r.ByRole[i]; rr.Role == role {
						v.add(r.Round, r.Target, m.get(rr))
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

// sortRoles sorts roles in roleOrder, unknown ones last by name.
func sortRoles(roles []string) []string {
	slices.SortFunc(roles, compareRoles)
	return roles
}

func compareRoles(a, b string) int {
	return cmp.Or(cmp.Compare(roleRank(a), roleRank(b)), strings.Compare(a, b))
}
