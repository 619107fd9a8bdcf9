package server

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMetricsProviderDefaults(t *testing.T) {
	c, err := parseCfg("clientPort=2181\n")
	require.NoError(t, err)
	require.Equal(t, MetricsProvider{ClassName: DefaultProviderClass, HTTPHost: "0.0.0.0", HTTPPort: 7000, ExportJvmInfo: true}, c.Metrics)
	require.False(t, c.Metrics.Prometheus(), "ZooKeeper serves no /metrics by default")
	require.False(t, DefaultConfig().Metrics.Prometheus())
}

func TestMetricsProviderPrometheus(t *testing.T) {
	c, err := parseCfg(`clientPort=2181
metricsProvider.className=org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider
metricsProvider.httpHost=127.0.0.1
metricsProvider.httpPort=7001
metricsProvider.exportJvmInfo=FALSE
metricsProvider.numWorkerThreads=2
`)
	require.NoError(t, err)
	require.True(t, c.Metrics.Prometheus())
	require.Equal(t, "127.0.0.1:7001", c.Metrics.Addr())
	require.False(t, c.Metrics.ExportJvmInfo)
	require.Equal(t, []string{"metricsProvider.numWorkerThreads"}, c.Ignored,
		"the Prometheus provider's worker-pool keys are accepted and have no effect")

	c, err = parseCfg("clientPort=2181\nmetricsProvider.exportJvmInfo=yes\nmetricsProvider.httpPort=0\n")
	require.NoError(t, err)
	require.False(t, c.Metrics.ExportJvmInfo, "Boolean.parseBoolean: only true is true")
	require.Equal(t, 0, c.Metrics.HTTPPort, "0 picks a free port")
}

func TestMetricsProviderErrors(t *testing.T) {
	_, err := parseCfg("clientPort=2181\nmetricsProvider.className=com.example.Other\n")
	require.True(t, errors.Is(err, ErrMetricsProviderClass), "%v", err)
	require.ErrorContains(t, err, `zoo.cfg:2: metricsProvider.className: "com.example.Other": metrics provider class was not found`)
	_, err = parseCfg("clientPort=2181\nmetricsProvider.httpPort=x\n")
	require.EqualError(t, err, `zoo.cfg:2: metricsProvider.httpPort: "x" is not an integer`)
	_, err = parseCfg("clientPort=2181\nmetricsProvider.httpPort=70000\n")
	require.EqualError(t, err, `zoo.cfg:2: metricsProvider.httpPort: "70000" is not a valid port (0-65535)`)
}
