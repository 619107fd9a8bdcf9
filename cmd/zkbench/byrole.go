package main

import (
	"cmp"
	"fmt"
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
	slices.SortFunc(out, func(a, b roleResult) int {
		return cmp.Or(cmp.Compare(roleRank(a.Role), roleRank(b.Role)), strings.Compare(a.Role, b.Role))
	})
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

// summarizeRolesAB pairs A's and B's per-role figures round by round, for
// the roles both have in a round: the median of each side and of the
// per-round ratios A/B.
func summarizeRolesAB(results []*result) []roleSummaryRow {
	type pair [2]*roleResult
	byRole := map[string]map[int]pair{}
	for _, r := range results {
		side := 1
		if r.Target == "A" {
			side = 0
		}
		for i := range r.ByRole {
			rr := &r.ByRole[i]
			if byRole[rr.Role] == nil {
				byRole[rr.Role] = map[int]pair{}
			}
			p := byRole[rr.Role][r.Round]
			p[side] = rr
			byRole[rr.Role][r.Round] = p
		}
	}
	roles := make([]string, 0, len(byRole))
	for role := range byRole {
		roles = append(roles, role)
	}
	slices.SortFunc(roles, func(a, b string) int {
		return cmp.Or(cmp.Compare(roleRank(a), roleRank(b)), strings.Compare(a, b))
	})
	var rows []roleSummaryRow
	for _, role := range roles {
		for _, m := range roleMetrics {
			var as, bs, ratios []float64
			for _, p := range byRole[role] {
				if p[0] == nil || p[1] == nil {
					continue
				}
				a, b := m.get(p[0]), m.get(p[1])
				as, bs = append(as, a), append(bs, b)
				if b != 0 {
					ratios = append(ratios, a/b)
				}
			}
			if len(as) == 0 {
				continue
			}
			rows = append(rows, roleSummaryRow{Role: role,
				summaryRow: summaryRow{Metric: m.key, A: median(as), B: median(bs), Ratio: median(ratios)}})
		}
	}
	return rows
}
