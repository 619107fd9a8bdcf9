package consensus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"strings"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

// This file is the bridge from hashicorp/raft's logger (hclog) to the
// server's log/slog logger. Each Raft line becomes one native slog record:
// its message, its level mapped (and lowered for lines that are routine in
// an ensemble), its key/value pairs as attributes and the hclog logger's
// name as the "logger" attribute. Nothing is formatted to text and parsed
// again.

// raftLogger returns the hclog.Logger Raft and its stores log to; nil
// discards everything.
func raftLogger(l *slog.Logger) hclog.Logger {
	if l == nil {
		return hclog.NewNullLogger()
	}
	return &slogHCLog{l: l, name: "raft"}
}

// slogHCLog implements hclog.Logger on a *slog.Logger.
type slogHCLog struct {
	l     *slog.Logger
	name  string
	args  []any // from With
	level hclog.Level
}

var _ hclog.Logger = (*slogHCLog)(nil)

// routine lists Raft messages that are expected whenever a peer is down,
// restarts, or an election runs. They are logged at debug level: the
// server itself logs one line per leader change and one per peer that
// becomes unreachable or reachable again (see Node.Observe), instead of
// Raft's line per heartbeat back-off or per vote request.
var routine = []string{
	"failed to heartbeat to",
	"failed to appendEntries to",
	"failed to pipeline appendEntries",
	"failed to start pipeline replication to",
	"failed to make requestVote RPC",
	"failed to contact",
	"heartbeat timeout reached",
	"Election timeout reached",
	"appendEntries rejected, sending older logs",
	"rejecting vote request",
	"rejecting pre-vote request",
	"duplicate requestVote from",
	"new leader elected, stepping down",
	"peer has newer term, stopping replication",
	"pre-vote is disabled",
	"target does not support pre-vote RPC",
	"previous log term mis-match",
	"failed to get previous log",
	"clearing log suffix",
	"skipping application of old log",
	"Shutdown node at",
	"no known peers, aborting election",
	"not part of stable configuration, aborting election",
	"failed to send snapshot to", // retried; the peer's state is reported by Observe
	"rotate error",               // raft-wal; the disk guard reports a full disk once
}

// goneErrors are transport errors that only mean a peer (or this node)
// closed its side: a stopping or restarting server, never a fault here.
var goneErrors = []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.EPIPE}

// level maps an hclog record to a slog level.
func (h *slogHCLog) level2slog(level hclog.Level, msg string, args []any) slog.Level {
	switch level {
	case hclog.Trace:
		return slog.LevelDebug - 4
	case hclog.Debug, hclog.Info:
		// Raft's info lines (entering follower state, election won,
		// added peer...) are its internals; the server logs the changes
		// an operator acts on.
		return slog.LevelDebug
	}
	for _, r := range routine {
		if strings.HasPrefix(msg, r) {
			return slog.LevelDebug
		}
	}
	if peerGone(args) {
		return slog.LevelDebug
	}
	if level == hclog.Warn {
		return slog.LevelWarn
	}
	return slog.LevelError
}

// peerGone reports whether the record's error only says a connection ended,
// that the log disk is full, or that this node's log is closing (each
// reported once elsewhere).
func peerGone(args []any) bool {
	for i := 1; i < len(args); i += 2 {
		err, ok := args[i].(error)
		if !ok {
			continue
		}
		if isDiskFull(err) {
			return true // the server reports a full disk once, not per append
		}
		for _, g := range goneErrors {
			if errors.Is(err, g) {
				return true
			}
		}
		if s := err.Error(); strings.Contains(s, "use of closed network connection") || strings.Contains(s, "transport shutdown") {
			return true
		}
		// A stopping node closes its log before Raft stops, so that
		// appends waiting for the disk end; Raft then fails to store what
		// it still had, and quotes the error (%q), so errors.Is cannot
		// see it. The stop itself is logged by the server.
		if strings.Contains(err.Error(), errLogClosed.Error()) {
			return true
		}
	}
	return false
}

// Log implements hclog.Logger.
func (h *slogHCLog) Log(level hclog.Level, msg string, args ...any) {
	if level == hclog.Off || (h.level != hclog.NoLevel && level < h.level) {
		return
	}
	sl := h.level2slog(level, msg, args)
	ctx := context.Background()
	if !h.l.Enabled(ctx, sl) {
		return
	}
	attrs := make([]slog.Attr, 0, 1+(len(h.args)+len(args))/2)
	attrs = append(attrs, slog.String("logger", h.name))
	attrs = appendPairs(attrs, h.args)
	attrs = appendPairs(attrs, args)
	h.l.LogAttrs(ctx, sl, msg, attrs...)
}

// appendPairs turns hclog's alternating keys and values into attributes.
// An odd trailing value is kept under "EXTRA_VALUE_AT_END", as hclog does.
func appendPairs(attrs []slog.Attr, kv []any) []slog.Attr {
	for i := 0; i < len(kv); i += 2 {
		if i+1 == len(kv) {
			attrs = append(attrs, slog.Any("EXTRA_VALUE_AT_END", value(kv[i])))
			break
		}
		key, ok := kv[i].(string)
		if !ok {
			key = fmt.Sprint(kv[i])
		}
		attrs = append(attrs, slog.Any(strings.ReplaceAll(key, " ", "_"), value(kv[i+1])))
	}
	return attrs
}

// value unwraps hclog's lazy formatting helpers.
func value(v any) any {
	switch x := v.(type) {
	case hclog.Format:
		if len(x) > 0 {
			if f, ok := x[0].(string); ok {
				return fmt.Sprintf(f, x[1:]...)
			}
		}
		return fmt.Sprint([]any(x)...)
	case error:
		return x.Error()
	}
	return v
}

// Trace implements hclog.Logger.
func (h *slogHCLog) Trace(msg string, args ...any) { h.Log(hclog.Trace, msg, args...) }

// Debug implements hclog.Logger.
func (h *slogHCLog) Debug(msg string, args ...any) { h.Log(hclog.Debug, msg, args...) }

// Info implements hclog.Logger.
func (h *slogHCLog) Info(msg string, args ...any) { h.Log(hclog.Info, msg, args...) }

// Warn implements hclog.Logger.
func (h *slogHCLog) Warn(msg string, args ...any) { h.Log(hclog.Warn, msg, args...) }

// Error implements hclog.Logger.
func (h *slogHCLog) Error(msg string, args ...any) { h.Log(hclog.Error, msg, args...) }

// enabled reports whether records of level reach the handler at all
// (before the per-message lowering, so it may say yes too often).
func (h *slogHCLog) enabled(level hclog.Level) bool {
	if h.level != hclog.NoLevel && level < h.level {
		return false
	}
	sl := slog.LevelError
	switch level {
	case hclog.Trace:
		sl = slog.LevelDebug - 4
	case hclog.Debug, hclog.Info:
		sl = slog.LevelDebug
	case hclog.Warn:
		sl = slog.LevelWarn
	}
	return h.l.Enabled(context.Background(), sl)
}

// IsTrace implements hclog.Logger.
func (h *slogHCLog) IsTrace() bool { return h.enabled(hclog.Trace) }

// IsDebug implements hclog.Logger.
func (h *slogHCLog) IsDebug() bool { return h.enabled(hclog.Debug) }

// IsInfo implements hclog.Logger.
func (h *slogHCLog) IsInfo() bool { return h.enabled(hclog.Info) }

// IsWarn implements hclog.Logger.
func (h *slogHCLog) IsWarn() bool { return h.enabled(hclog.Warn) }

// IsError implements hclog.Logger.
func (h *slogHCLog) IsError() bool { return h.enabled(hclog.Error) }

// ImpliedArgs implements hclog.Logger.
func (h *slogHCLog) ImpliedArgs() []any { return h.args }

// With implements hclog.Logger.
func (h *slogHCLog) With(args ...any) hclog.Logger {
	c := *h
	c.args = append(append([]any(nil), h.args...), args...)
	return &c
}

// Name implements hclog.Logger.
func (h *slogHCLog) Name() string { return h.name }

// Named implements hclog.Logger.
func (h *slogHCLog) Named(name string) hclog.Logger {
	c := *h
	if c.name != "" {
		name = c.name + "." + name
	}
	c.name = name
	return &c
}

// ResetNamed implements hclog.Logger.
func (h *slogHCLog) ResetNamed(name string) hclog.Logger {
	c := *h
	c.name = name
	return &c
}

// SetLevel implements hclog.Logger: a floor below which records are
// dropped, on top of the slog handler's own level.
func (h *slogHCLog) SetLevel(level hclog.Level) { h.level = level }

// GetLevel implements hclog.Logger.
func (h *slogHCLog) GetLevel() hclog.Level { return h.level }

// StandardLogger implements hclog.Logger.
func (h *slogHCLog) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(h.StandardWriter(opts), "", 0)
}

// StandardWriter implements hclog.Logger. Only libraries that insist on a
// *log.Logger use it (Raft does not); their lines are logged as they come,
// at info level unless they start with an [ERROR]-style tag.
func (h *slogHCLog) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return stdWriter{h}
}

type stdWriter struct{ h *slogHCLog }

func (w stdWriter) Write(p []byte) (int, error) {
	msg := strings.TrimRight(string(p), "\r\n")
	level := hclog.Info
	for tag, l := range map[string]hclog.Level{"[ERROR]": hclog.Error, "[ERR]": hclog.Error, "[WARN]": hclog.Warn, "[DEBUG]": hclog.Debug, "[TRACE]": hclog.Trace} {
		if rest, ok := strings.CutPrefix(msg, tag); ok {
			msg, level = strings.TrimSpace(rest), l
			break
		}
	}
	w.h.Log(level, msg)
	return len(p), nil
}
