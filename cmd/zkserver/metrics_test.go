package main

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPrometheusProviderServesMetrics(t *testing.T) {
	bin := buildServer(t)
	port, metricsPort := freePort(t), freePort(t)
	cfg := writeCfg(t, fmt.Sprintf("tickTime=2000\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"metricsProvider.className=org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider\n"+
		"metricsProvider.httpHost=127.0.0.1\nmetricsProvider.httpPort=%d\n", port, metricsPort))
	cmd := exec.Command(bin, cfg)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", metricsPort)
	waitListening(t, addr)
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(body), "# TYPE znode_count gauge\n")
	require.Contains(t, string(body), "# TYPE commit_count counter\n")
	require.Contains(t, string(body), "# TYPE go_goroutines gauge\n", "exportJvmInfo defaults to true")
}

func TestUnknownMetricsProviderFailsTheStart(t *testing.T) {
	bin := buildServer(t)
	cfg := writeCfg(t, fmt.Sprintf("clientPort=%d\nmetricsProvider.className=com.example.Nope\n", freePort(t)))
	out, err := exec.Command(bin, cfg).CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), `metricsProvider.className: "com.example.Nope": metrics provider class was not found`)
}
