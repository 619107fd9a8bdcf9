package exporter

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
)

// families is one scrape, by family name.
type families map[string]*dto.MetricFamily

// startExporter serves src on a free loopback port until the test ends.
func startExporter(t *testing.T, src Source) string {
	t.Helper()
	e, err := Start(src, Config{Addr: "127.0.0.1:0", ExportRuntime: true})
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return "http://" + e.Addr().String() + Path
}

// scrape GETs url and parses the classic text format.
func scrape(t *testing.T, url string) families {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4"), "classic text format, got %q", resp.Header.Get("Content-Type"))
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return fams
}

// value returns the value of the family's only sample (a summary's count).
func (f families) value(t *testing.T, name string) float64 {
	t.Helper()
	fam, ok := f[name]
	require.True(t, ok, "no family %s", name)
	require.Len(t, fam.Metric, 1, name)
	m := fam.Metric[0]
	switch fam.GetType() {
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue()
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue()
	case dto.MetricType_SUMMARY:
		return float64(m.GetSummary().GetSampleCount())
	}
	t.Fatalf("%s: unexpected type %v", name, fam.GetType())
	return 0
}

// keyed returns the summary-set member of family name with label key=k.
func (f families) keyed(name, k string) *dto.Metric {
	fam, ok := f[name]
	if !ok {
		return nil
	}
	for _, m := range fam.Metric {
		for _, l := range m.Label {
			if l.GetName() == keyLabel && l.GetValue() == k {
				return m
			}
		}
	}
	return nil
}

// zkMetric is one line of testdata/zookeeper-3.8-metrics.tsv.
type zkMetric struct{ name, typ, level, role string }

// readTSV reads a testdata table, skipping comments.
func readTSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	require.NoError(t, sc.Err())
	return rows
}

func zooKeeperMetrics(t *testing.T) map[string]zkMetric {
	out := map[string]zkMetric{}
	for _, r := range readTSV(t, "testdata/zookeeper-3.8-metrics.tsv") {
		out[r[0]] = zkMetric{r[0], r[1], r[2], r[3]}
	}
	return out
}

// promType is the dto type a ZooKeeper metric type is exported as.
var promType = map[string]dto.MetricType{
	"counter": dto.MetricType_COUNTER, "gauge": dto.MetricType_GAUGE,
	"summary": dto.MetricType_SUMMARY, "summary_set": dto.MetricType_SUMMARY,
}

// workload runs the same client operations on any server: creates,
// reads, watches that fire, updates and deletes under /app.
func workload(t *testing.T, addr string) {
	t.Helper()
	c, events, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(quiet{}))
	require.NoError(t, err)
	defer c.Close()
	waitConnected(t, events)
	acl := zk.WorldACL(zk.PermAll)
	_, err = c.Create("/app", []byte("root"), 0, acl)
	require.NoError(t, err)
	for _, n := range []string{"/app/a", "/app/b", "/app/c"} {
		_, err = c.Create(n, []byte("data of "+n), 0, acl)
		require.NoError(t, err)
	}
	_, _, watch, err := c.GetW("/app/a")
	require.NoError(t, err)
	_, _, childWatch, err := c.ChildrenW("/app")
	require.NoError(t, err)
	_, _, err = c.Exists("/app/b")
	require.NoError(t, err)
	_, err = c.Set("/app/a", []byte("changed"), -1)
	require.NoError(t, err)
	<-watch
	require.NoError(t, c.Delete("/app/c", -1))
	<-childWatch
	_, _, err = c.Get("/app/b")
	require.NoError(t, err)
}

func waitConnected(t *testing.T, events <-chan zk.Event) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	var seen []string // the client's states, for the failure
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return
			}
			seen = append(seen, fmt.Sprintf("%v (%v)", ev.State, ev.Err))
		case <-timeout:
			t.Fatalf("no session within 10 s; the client went through %v", seen)
		}
	}
}

type quiet struct{}

func (quiet) Printf(string, ...interface{}) {}

// get fetches url and returns the status, content type and body.
func get(t *testing.T, method, url string, header map[string]string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}
