package server

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/zkraft/zkraft/metrics"
	"github.com/zkraft/zkraft/wire"
)

// This file holds the server's part of ZooKeeper's ServerMetrics: the
// counters and summaries whose events happen in this package, registered
// once in the server's metrics.Set (consensus registers its own there).
// mntr, the AdminServer and /metrics all read that Set.

// serverMetrics are the metrics recorded by the request path.
type serverMetrics struct {
	readLatency, updateLatency  *metrics.Summary // ms from receipt to reply, reads and writes
	localWriteCommitted         *metrics.Summary // ms from proposal to local apply of this server's writes
	bytesReceived               *metrics.Counter // request bytes, length prefixes included
	responseBytes, watchBytes   *metrics.Counter // reply and notification bytes
	connectionRequests          *metrics.Counter // ConnectRequests
	staleSessionsExpired        *metrics.Counter // sessions this leader expired
	sessionlessExpired          *metrics.Counter // connections closed for not finishing the handshake
	readPerNamespace            *metrics.SummarySet
	writePerNamespace           *metrics.SummarySet
	createdWatch, deletedWatch  *metrics.Summary // watchers fired per event
	changedWatch, childrenWatch *metrics.Summary
	authFailed                  atomic.Int64        // ServerStats' auth_failed_count gauge
	responseSize                metrics.BufferStats // ServerStats' client response sizes
}

// newServerMetrics registers the server's metrics in set, then those of
// ZooKeeper's ServerMetrics that zkraft has no event for (always 0), so
// that mntr and /metrics list every one as ZooKeeper does.
func newServerMetrics(set *metrics.Set) *serverMetrics {
	m := &serverMetrics{
		readLatency:          set.Summary("readlatency", metrics.Advanced),
		updateLatency:        set.Summary("updatelatency", metrics.Advanced),
		localWriteCommitted:  set.Summary("local_write_committed_time_ms", metrics.Advanced),
		bytesReceived:        set.Counter("bytes_received_count"),
		responseBytes:        set.Counter("response_bytes"),
		watchBytes:           set.Counter("watch_bytes"),
		connectionRequests:   set.Counter("connection_request_count"),
		staleSessionsExpired: set.Counter("stale_sessions_expired"),
		sessionlessExpired:   set.Counter("sessionless_connections_expired"),
		readPerNamespace:     set.SummarySet("read_per_namespace", metrics.Basic),
		writePerNamespace:    set.SummarySet("write_per_namespace", metrics.Basic),
		createdWatch:         set.Summary("node_created_watch_count", metrics.Basic),
		deletedWatch:         set.Summary("node_deleted_watch_count", metrics.Basic),
		changedWatch:         set.Summary("node_changed_watch_count", metrics.Basic),
		childrenWatch:        set.Summary("node_children_watch_count", metrics.Basic),
	}
	m.responseSize.Reset()
	registerIdle(set)
	return m
}

// observeLatency records a request's latency, taken at now (ZooKeeper's
// ServerStats: updatelatency for transactions, readlatency for the rest).
func (m *serverMetrics) observeLatency(write bool, d time.Duration, now time.Time) {
	if write {
		m.updateLatency.ObserveAt(d.Milliseconds(), now)
	} else {
		m.readLatency.ObserveAt(d.Milliseconds(), now)
	}
}

// watchersFired records how many watchers an event of type typ fired.
func (m *serverMetrics) watchersFired(typ wire.EventType, n int) {
	if n == 0 {
		return
	}
	switch typ {
	case wire.EventNodeCreated:
		m.createdWatch.Observe(int64(n))
	case wire.EventNodeDeleted:
		m.deletedWatch.Observe(int64(n))
	case wire.EventNodeDataChanged:
		m.changedWatch.Observe(int64(n))
	case wire.EventNodeChildrenChanged:
		m.childrenWatch.Observe(int64(n))
	}
}

// statOverhead is what ZooKeeper adds to a read's bytes for its Stat
// (DataTree.STAT_OVERHEAD_BYTES: six longs and five ints).
const statOverhead = 6*8 + 5*4

// readBytes records a read of path returning n bytes (data, or children
// names) against its top-level znode, as ZooKeeper's DataTree does.
func (m *serverMetrics) readBytes(path string, n int, at time.Time) {
	if ns := topNamespace(path); ns != "" {
		m.readPerNamespace.ObserveAt(ns, int64(len(path)+n+statOverhead), at)
	}
}

// writeBytes records a write of n data bytes to path.
func (m *serverMetrics) writeBytes(path string, n int) {
	if ns := topNamespace(path); ns != "" {
		m.writePerNamespace.Observe(ns, int64(len(path)+n))
	}
}

// topNamespace is the first component of path ("app" for /app/x), ""
// for the root (ZooKeeper's PathUtils.getTopNamespace).
func topNamespace(path string) string {
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return ""
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// appliedWrites records an applied transaction's writes per namespace
// (on every server, as ZooKeeper's DataTree does on every replica).
func (m *serverMetrics) appliedWrites(body wire.Record) {
	switch r := body.(type) {
	case *wire.CreateRequest:
		m.writeBytes(r.Path, len(r.Data))
	case *wire.CreateTTLRequest:
		m.writeBytes(r.Path, len(r.Data))
	case *wire.SetDataRequest:
		m.writeBytes(r.Path, len(r.Data))
	case *wire.DeleteRequest:
		m.writeBytes(r.Path, 0)
	case *wire.MultiRequest:
		for _, op := range r.Ops {
			m.appliedWrites(op.Record)
		}
	}
}

// readResult records a successful read's bytes per namespace.
func (m *serverMetrics) readResult(req, body wire.Record, at time.Time) {
	r, ok := req.(*wire.PathWatchRequest)
	if !ok {
		return
	}
	switch b := body.(type) {
	case *wire.GetDataResponse:
		m.readBytes(r.Path, len(b.Data), at)
	case *wire.StatResponse:
		m.readBytes(r.Path, 0, at)
	case *wire.GetChildrenResponse:
		m.readBytes(r.Path, namesLen(b.Children), at)
	case *wire.GetChildren2Response:
		m.readBytes(r.Path, namesLen(b.Children), at)
	}
}

func namesLen(names []string) int {
	n := 0
	for _, s := range names {
		n += len(s)
	}
	return n
}
