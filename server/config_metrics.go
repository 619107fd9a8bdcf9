package server

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// This file reads zoo.cfg's metricsProvider.* keys. ZooKeeper's
// QuorumPeerConfig keeps metricsProvider.className and hands every other
// metricsProvider.X key to the provider it names; the Prometheus provider
// reads httpHost, httpPort and exportJvmInfo and ignores the rest.

// MetricsProvider is the metricsProvider.* part of a configuration.
type MetricsProvider struct {
	// ClassName is metricsProvider.className: ZooKeeper's
	// DefaultMetricsProvider (mntr and the AdminServer only, the default),
	// its NullMetricsProvider (the same here) or PrometheusMetricsProvider,
	// which serves /metrics (see Prometheus).
	ClassName string
	// HTTPHost and HTTPPort are where /metrics listens
	// (metricsProvider.httpHost, default 0.0.0.0; metricsProvider.httpPort,
	// default 7000; 0 picks a free port).
	HTTPHost string
	HTTPPort int
	// ExportJvmInfo adds the process's runtime figures to /metrics
	// (metricsProvider.exportJvmInfo, default true): Go's go_* and
	// process_* collectors stand in for the JVM's.
	ExportJvmInfo bool
}

// Metrics provider classes of Apache ZooKeeper that zkraft accepts.
const (
	// PrometheusProviderClass serves /metrics.
	PrometheusProviderClass = "org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider"
	// DefaultProviderClass is ZooKeeper's default: no endpoint.
	DefaultProviderClass = "org.apache.zookeeper.metrics.impl.DefaultMetricsProvider"
	// NullProviderClass discards metrics in ZooKeeper; here it serves no
	// endpoint, as the default.
	NullProviderClass = "org.apache.zookeeper.metrics.impl.NullMetricsProvider"
)

// The Prometheus provider's defaults.
const (
	DefaultMetricsHost = "0.0.0.0"
	DefaultMetricsPort = 7000
)

// ErrMetricsProviderClass is the error for a metricsProvider.className
// zkraft does not have. ZooKeeper fails the same way, at configuration
// time, when the class is not on its class path.
var ErrMetricsProviderClass = errors.New("metrics provider class was not found (zkraft has " +
	PrometheusProviderClass + ", " + DefaultProviderClass + " and " + NullProviderClass + ")")

// defaultMetricsProvider is the metricsProvider.* part of a zoo.cfg that
// sets none of its keys.
func defaultMetricsProvider() MetricsProvider {
	return MetricsProvider{ClassName: DefaultProviderClass, HTTPHost: DefaultMetricsHost,
		HTTPPort: DefaultMetricsPort, ExportJvmInfo: true}
}

// Prometheus reports whether /metrics is to be served.
func (m MetricsProvider) Prometheus() bool { return m.ClassName == PrometheusProviderClass }

// Addr is the host:port /metrics listens on.
func (m MetricsProvider) Addr() string {
	return m.HTTPHost + ":" + strconv.Itoa(m.HTTPPort)
}

// metricsKeyHandlers parse the metricsProvider.* keys zkraft reads.
var metricsKeyHandlers = map[string]func(m *MetricsProvider, v string) error{
	"metricsProvider.className": setMetricsClass,
	"metricsProvider.httpHost":  func(m *MetricsProvider, v string) error { m.HTTPHost = v; return nil },
	"metricsProvider.httpPort":  setMetricsPort,
	// Java's Boolean.parseBoolean: "true" in any case, anything else false.
	"metricsProvider.exportJvmInfo": func(m *MetricsProvider, v string) error {
		m.ExportJvmInfo = strings.EqualFold(v, "true")
		return nil
	},
}

// applyMetrics handles key if it is one of metricsKeyHandlers.
func (p *cfgParser) applyMetrics(key, value string) (handled bool, err error) {
	h, ok := metricsKeyHandlers[key]
	if !ok {
		return false, nil
	}
	return true, h(&p.c.Metrics, value)
}

func setMetricsClass(m *MetricsProvider, v string) error {
	switch v {
	case PrometheusProviderClass, DefaultProviderClass, NullProviderClass:
		m.ClassName = v
		return nil
	}
	return fmt.Errorf("%q: %w", v, ErrMetricsProviderClass)
}

// setMetricsPort parses httpPort as Integer.parseInt does; 0 picks a free
// port, as Jetty does.
func setMetricsPort(m *MetricsProvider, v string) error {
	n, err := parseInt(v)
	if err != nil {
		return err
	}
	if n < 0 || n > 65535 {
		return fmt.Errorf("%q is not a valid port (0-65535)", v)
	}
	m.HTTPPort = n
	return nil
}
