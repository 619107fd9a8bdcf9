package exporter

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/server"
)

// checkZooKeeperNames checks every metric of ZooKeeper 3.8 that role
// exports: present, of ZooKeeper's type, summaries with their level's
// quantiles, sets with label key only.
func checkZooKeeperNames(t *testing.T, fams families, roles ...string) {
	t.Helper()
	for _, m := range zooKeeperMetrics(t) {
		fam, ok := fams[m.name]
		if m.typ == "summary_set" {
			if ok {
				checkSummary(t, fam, m.level, true)
			}
			continue
		}
		if !slices.Contains(roles, m.role) {
			require.False(t, ok, "%s is exported by a ZooKeeper %s only", m.name, m.role)
			continue
		}
		require.True(t, ok, "ZooKeeper 3.8's %s %s is missing", m.typ, m.name)
		require.Equal(t, promType[m.typ], fam.GetType(), m.name)
		require.Equal(t, m.name, fam.GetHelp(), "HELP is the name, as ZooKeeper's provider writes it")
		if m.typ == "summary" {
			checkSummary(t, fam, m.level, false)
		} else {
			require.Len(t, fam.Metric, 1, m.name)
			require.Empty(t, fam.Metric[0].Label, m.name)
		}
	}
}

func checkSummary(t *testing.T, fam *dto.MetricFamily, level string, keyed bool) {
	t.Helper()
	want := []float64{0.5}
	if level == "ADVANCED" || level == "advanced" {
		want = []float64{0.5, 0.9, 0.99}
	}
	require.Equal(t, dto.MetricType_SUMMARY, fam.GetType(), fam.GetName())
	for _, m := range fam.Metric {
		var got []float64
		for _, q := range m.GetSummary().GetQuantile() {
			got = append(got, q.GetQuantile())
		}
		require.Equal(t, want, got, "%s: quantiles of a %s summary", fam.GetName(), level)
		if keyed {
			require.Len(t, m.Label, 1, fam.GetName())
			require.Equal(t, keyLabel, m.Label[0].GetName())
		} else {
			require.Empty(t, m.Label, fam.GetName())
		}
	}
}

// checkNoTotal: no counter outside Go's and the process's collectors has
// OpenMetrics' _total suffix.
func checkNoTotal(t *testing.T, fams families) {
	t.Helper()
	for name, fam := range fams {
		if fam.GetType() == dto.MetricType_COUNTER && !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") {
			require.False(t, strings.HasSuffix(name, "_total"), name)
		}
	}
}

func TestStandaloneMetrics(t *testing.T) {
	s := integration.StartServer(t)
	url := startExporter(t, s.Server)
	workload(t, s.Addr())
	fams := scrape(t, url)

	checkZooKeeperNames(t, fams, "all")
	checkNoTotal(t, fams)
	for _, name := range []string{"go_goroutines", "process_open_fds", "process_resident_memory_bytes", "raft_apply"} {
		require.Contains(t, fams, name)
	}
	require.NotContains(t, fams, "server_state", "strings are not metrics")

	// The workload moved the counters and summaries.
	for _, name := range []string{"bytes_received_count", "response_bytes", "watch_bytes", "connection_request_count",
		"commit_count", "proposal_count", "readlatency", "updatelatency", "local_write_committed_time_ms",
		"node_changed_watch_count", "node_children_watch_count", "packets_received", "znode_count"} {
		require.Positive(t, fams.value(t, name), name)
	}
	require.Positive(t, fams.value(t, "last_client_response_size"))
	for _, set := range []string{"read_per_namespace", "write_per_namespace"} {
		m := fams.keyed(set, "app")
		require.NotNil(t, m, "%s{key=\"app\"}", set)
		require.Positive(t, m.GetSummary().GetSampleCount())
	}
	before := fams.value(t, "commit_count")
	c, _ := s.Connect(t)
	_, err := c.Create("/more", []byte("x"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.Greater(t, scrape(t, url).value(t, "commit_count"), before)
}

func TestMntrReadsTheSameMetrics(t *testing.T) {
	s := integration.StartServer(t)
	workload(t, s.Addr())
	mntr := map[string]any{}
	for _, r := range s.Monitor() {
		mntr[r.Key] = r.Value
	}
	for _, key := range []string{"commit_count", "bytes_received_count", "looking_count",
		"avg_readlatency", "min_readlatency", "max_readlatency", "cnt_readlatency", "sum_readlatency",
		"p50_readlatency", "p95_readlatency", "p99_readlatency", "p999_readlatency",
		"avg_fsynctime", "cnt_election_time", "cnt_app_read_per_namespace",
		"auth_failed_count", "last_client_response_size", "non_mtls_local_conn_count"} {
		require.Contains(t, mntr, key)
	}
	require.NotContains(t, mntr, "p50_fsynctime", "a Basic summary has no percentiles in mntr")
	fams := scrape(t, startExporter(t, s.Server))
	require.EqualValues(t, mntr["cnt_readlatency"], fams.value(t, "readlatency"), "one summary behind both")
	require.EqualValues(t, mntr["bytes_received_count"], fams.value(t, "bytes_received_count"), "one counter behind both")
}

func TestHTTPBehaviour(t *testing.T) {
	s := integration.StartServer(t)
	url := startExporter(t, s.Server)
	code, ctype, body := get(t, http.MethodGet, url, map[string]string{
		"Accept": "application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5"})
	require.Equal(t, http.StatusOK, code)
	require.True(t, strings.HasPrefix(ctype, "text/plain; version=0.0.4"), "never OpenMetrics: %s", ctype)
	require.Contains(t, body, "# TYPE commit_count counter\ncommit_count ")
	require.Contains(t, body, "# HELP znode_count znode_count\n# TYPE znode_count gauge\n")
	require.Contains(t, body, `readlatency{quantile="0.99"}`)
	require.NotContains(t, body, "commit_count_total")
	code, _, _ = get(t, http.MethodPost, url, nil)
	require.Equal(t, http.StatusMethodNotAllowed, code)
	code, _, _ = get(t, "TRACE", url, nil)
	require.Equal(t, http.StatusMethodNotAllowed, code)
	code, _, _ = get(t, http.MethodGet, strings.TrimSuffix(url, Path)+"/other", nil)
	require.Equal(t, http.StatusNotFound, code)
	_, err := Start(s.Server, Config{Addr: strings.TrimPrefix(strings.TrimSuffix(url, Path), "http://")})
	require.ErrorIs(t, err, ErrListen, "a port in use fails the start")
}

// TestDurableServerTimesDisk checks the disk metrics of a server with a
// dataDir: fsynctime per log append, snapshottime per snapshot (snapCount
// 2), dbinittime and, after a restart, startup_snap_load_time.
func TestDurableServerTimesDisk(t *testing.T) {
	dir := t.TempDir()
	durable := integration.WithConfig(func(c *server.Config) {
		c.DataDir, c.DataLogDir, c.SnapCount = dir, dir, 2
	})
	s := integration.StartServer(t, durable)
	workload(t, s.Addr())
	fams := scrape(t, startExporter(t, s.Server))
	require.Positive(t, fams.value(t, "fsynctime"))
	require.Equal(t, 1.0, fams.value(t, "dbinittime"))
	url := startExporter(t, s.Server)
	require.Eventually(t, func() bool { return scrape(t, url).value(t, "snapshottime") > 0 },
		10*time.Second, 20*time.Millisecond, "snapCount=2 takes snapshots")
	s.Close()

	again := integration.StartServer(t, durable)
	fams = scrape(t, startExporter(t, again.Server))
	require.Equal(t, 1.0, fams.value(t, "startup_snap_load_time"), "the restart loaded the snapshot")
	require.Equal(t, 1.0, fams.value(t, "dbinittime"), "counted per server, not per process")
}
