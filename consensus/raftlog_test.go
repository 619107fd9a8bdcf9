package consensus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"syscall"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// recordingHandler keeps the slog records it is given.
type recordingHandler struct {
	mu      sync.Mutex
	level   slog.Level
	records []slog.Record
}

func (h *recordingHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler      { return h }

func attrs(r slog.Record) map[string]string {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	return m
}

func TestRaftLoggerEmitsSlogRecords(t *testing.T) {
	h := &recordingHandler{level: slog.LevelDebug}
	l := raftLogger(slog.New(h)).Named("wal").With("segment", 7)
	l.Error("failed to commit logs", "error", errors.New("disk on fire"), "index", uint64(12))
	l.Warn("snapshot version not supported", "name", "x")
	l.Info("entering follower state", "follower", "1")
	l.Error("failed to heartbeat to", "peer", "127.0.0.1:1", "backoff time", "10ms", "error", errors.New("dial: refused"))
	l.Error("failed to decode incoming command", "error", fmt.Errorf("read: %w", syscall.ECONNRESET))
	l.Debug("formatted", "v", hclog.Fmt("%d-%s", 1, "a"))

	require.Len(t, h.records, 6)
	want := []struct {
		msg   string
		level slog.Level
	}{
		{"failed to commit logs", slog.LevelError},
		{"snapshot version not supported", slog.LevelWarn},
		{"entering follower state", slog.LevelDebug},
		{"failed to heartbeat to", slog.LevelDebug},
		{"failed to decode incoming command", slog.LevelDebug},
		{"formatted", slog.LevelDebug},
	}
	for i, w := range want {
		require.Equal(t, w.msg, h.records[i].Message, "the message alone, no hclog text around it")
		require.Equal(t, w.level, h.records[i].Level, w.msg)
	}
	a := attrs(h.records[0])
	require.Equal(t, map[string]string{"logger": "raft.wal", "segment": "7", "error": "disk on fire", "index": "12"}, a)
	require.Equal(t, "10ms", attrs(h.records[3])["backoff_time"])
	require.Equal(t, "1-a", attrs(h.records[5])["v"])
}

func TestRaftLoggerLevels(t *testing.T) {
	h := &recordingHandler{level: slog.LevelWarn}
	l := raftLogger(slog.New(h))
	require.False(t, l.IsInfo())
	require.True(t, l.IsWarn())
	l.Info("entering leader state")
	l.Error("failed to make requestVote RPC", "error", errors.New("refused"))
	require.Empty(t, h.records, "routine lines stay below warn")
	// What Raft logs when a stopping node's log refuses its last append
	// (TestEnsembleLogsArePlain saw it on a clean stop).
	l.Error("failed to commit logs", "error", fmt.Errorf("unable to store logs within log store, err: %q", errLogClosed.Error()))
	require.Empty(t, h.records, "a closing log is no error")
	l.Error("failed to commit logs", "error", errors.New("unable to store logs within log store, err: \"input/output error\""))
	require.Len(t, h.records, 1, "a failing disk is")
	h.records = nil
	l.SetLevel(hclog.Off)
	l.Error("failed to commit logs")
	require.Empty(t, h.records)
	require.NotPanics(t, func() { raftLogger(nil).Error("discarded") })
}
