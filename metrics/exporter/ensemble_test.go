package exporter

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
)

// leaderOnly are the gauges a ZooKeeper leader registers and unregisters
// when it stops leading (LeaderZooKeeperServer).
var leaderOnly = []string{"learners", "synced_followers", "synced_non_voting_followers", "synced_observers",
	"pending_syncs", "leader_uptime", "last_proposal_size", "min_proposal_size", "max_proposal_size"}

func TestEnsembleLeaderOnlyGauges(t *testing.T) {
	c := integration.StartCluster(t, 3)
	leader := c.WaitForLeader()
	urls := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		urls[i] = startExporter(t, s)
	}
	workload(t, c.Servers[leader].Addr())
	for i := range c.Servers {
		fams := scrape(t, urls[i])
		if i == leader {
			checkZooKeeperNames(t, fams, "all", "peer", "leader")
			require.Equal(t, 2.0, fams.value(t, "learners"))
			require.Equal(t, 2.0, fams.value(t, "synced_followers"))
			require.Positive(t, fams.value(t, "last_proposal_size"))
			require.Positive(t, fams.value(t, "proposal_count"))
			require.Positive(t, fams.value(t, "commit_count"))
		} else {
			checkZooKeeperNames(t, fams, "all", "peer")
			for _, name := range leaderOnly {
				require.NotContains(t, fams, name, "server %d follows", i+1)
			}
		}
		require.Equal(t, 3.0, fams.value(t, "quorum_size"))
		require.GreaterOrEqual(t, fams.value(t, "looking_count"), 1.0, "every member starts looking")
		require.GreaterOrEqual(t, fams.value(t, "election_time"), 1.0, "and records the election that ended it")
		checkNoTotal(t, fams)
	}
}

// TestDashboardAndAlertQueries checks that every metric that Grafana
// dashboard 10465, Grafana's ZooKeeper mixin and ZooKeeper's alert
// examples query (testdata/dashboard-queries.tsv) is served, on the
// members the query expects it from.
func TestDashboardAndAlertQueries(t *testing.T) {
	c := integration.StartCluster(t, 3)
	leader := c.WaitForLeader()
	workload(t, c.Servers[leader].Addr())
	queries := readTSV(t, "testdata/dashboard-queries.tsv")
	require.NotEmpty(t, queries)
	for i, s := range c.Servers {
		fams := scrape(t, startExporter(t, s))
		for _, q := range queries {
			name, role := q[0], q[1]
			if role == "leader" && i != leader {
				continue
			}
			require.True(t, served(fams, name), "server %d (leader %d): %s (queried by %s) is missing", i+1, leader+1, name, q[2])
		}
	}
	standalone := integration.StartServer(t)
	fams := scrape(t, startExporter(t, standalone.Server))
	for _, q := range queries {
		if q[1] == "all" {
			require.True(t, served(fams, q[0]), "standalone: %s is missing", q[0])
		}
	}
}

// served reports whether a query's series name is in the scrape: a
// family, or a summary's _count or _sum series.
func served(fams families, name string) bool {
	if _, ok := fams[name]; ok {
		return true
	}
	for _, suffix := range []string{"_count", "_sum"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if f, ok := fams[base]; ok && promType["summary"] == f.GetType() {
				return true
			}
		}
	}
	return false
}
