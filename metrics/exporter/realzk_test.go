package exporter

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/realzk"
)

// mntrPrefixes are the prefixes ZooKeeper's default provider gives a
// summary's figures in mntr.
var mntrPrefixes = []string{"avg_", "min_", "max_", "cnt_", "sum_", "p50_", "p95_", "p999_", "p99_"}

// TestAgainstRealZooKeeperMntr runs the same workload on Apache
// ZooKeeper 3.8 and on zkraft, then checks that every numeric key of real
// ZooKeeper's mntr (which lists every metric its Prometheus provider
// would export: Debian's package lacks the provider's jar) maps to a
// /metrics family of zkraft of the right type: a gauge or counter of the
// same name, or the summary (set) its avg_/min_/.../p999_ figure belongs
// to.
func TestAgainstRealZooKeeperMntr(t *testing.T) {
	if ok, why := realzk.Available(); !ok {
		t.Skip(why)
	}
	zk, err := realzk.Start("", realzk.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { zk.Stop() })
	workload(t, zk.Addr())
	out, err := realzk.FourLetterWord(zk.Addr(), "mntr", 5*time.Second)
	require.NoError(t, err)

	s := integration.StartServer(t)
	workload(t, s.Addr())
	fams := scrape(t, startExporter(t, s.Server))
	types := zooKeeperMetrics(t)

	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		key, value, ok := strings.Cut(line, "\t")
		require.True(t, ok, line)
		if _, err := strconv.ParseFloat(value, 64); err != nil {
			continue // version, server_state
		}
		key = strings.TrimPrefix(key, "zk_")
		checked++
		if fam, ok := fams[key]; ok {
			want, known := types[key]
			require.True(t, known, "%s is not in ZooKeeper's list of metrics", key)
			require.Equal(t, promType[want.typ], fam.GetType(), key)
			continue
		}
		require.True(t, summaryFigure(fams, key), "real ZooKeeper's mntr has %s; zkraft's /metrics has no family for it", key)
	}
	require.Greater(t, checked, 400, "mntr of ZooKeeper 3.8 lists ~490 numeric figures")
}

// summaryFigure reports whether key is an avg_/min_/.../p999_ figure of
// a summary in fams, or of a summary set's member (prefix_<key>_<name>).
func summaryFigure(fams families, key string) bool {
	for _, p := range mntrPrefixes {
		rest, ok := strings.CutPrefix(key, p)
		if !ok {
			continue
		}
		if f, ok := fams[rest]; ok && f.GetType() == promType["summary"] {
			return true
		}
		for i := strings.IndexByte(rest, '_'); i > 0; i = next(rest, i) {
			if fams.keyed(rest[i+1:], rest[:i]) != nil {
				return true
			}
		}
	}
	return false
}

// next is the index of the next '_' in s after i, or -1.
func next(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '_')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}
