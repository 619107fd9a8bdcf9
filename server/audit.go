package server

import (
	"io"
	"os"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkraft/zkraft/metrics"
	"github.com/zkraft/zkraft/wire"
)

// This file is the audit log of ZooKeeper 3.6+ (audit.enable): a line per
// write, session and HTTP change made through this server, formatted as
// ZooKeeper's AuditEvent with the prefix of its default appender. Lines
// are queued, bounded, and written by one goroutine at a time: a slow or
// full disk never holds or fails a request. A full queue drops lines and
// a failed write loses them; both are counted (zkraft_audit_dropped,
// zkraft_audit_write_errors) and a failing file is reported once. Which
// events are written is audit_events.go.

// auditQueueBytes bounds the lines waiting for the writer.
const auditQueueBytes = 4 << 20

// auditResult is an audit line's result field (ZooKeeper's
// AuditEvent.Result).
type auditResult int

const (
	auditSuccess auditResult = iota
	auditFailure
	// auditInvoked is written when the outcome is unknown (the client's
	// connection closes without a reply).
	auditInvoked
)

func (r auditResult) String() string {
	switch r {
	case auditFailure:
		return "failure"
	case auditInvoked:
		return "invoked"
	}
	return "success"
}

// The operation field's values: ZooKeeper's AuditConstants, then zkraft's
// own.
const (
	auditCreate           = "create"
	auditDelete           = "delete"
	auditSetData          = "setData"
	auditSetACL           = "setAcl"
	auditMulti            = "multiOperation"
	auditReconfig         = "reconfig"
	auditEphemeralDeleted = "ephemeralZNodeDeletionOnSessionCloseOrExpire"
	auditCreateSession    = "createSession"
	auditCloseSession     = "closeSession"
	auditExpireSession    = "expireSession"
)

// auditEvent is one line. Empty fields are left out, as ZooKeeper leaves
// out its null ones; session 0 means none (HTTP callers have none).
type auditEvent struct {
	session               int64
	user, ip, operation   string
	znode, znodeType, acl string
	result                auditResult
}

// auditTimeLayout is %d{ISO8601} of log4j and logback, in local time, as
// ZooKeeper's audit appender writes it.
const auditTimeLayout = "2006-01-02 15:04:05,000"

// auditLogger stands where ZooKeeper's appender writes the logger's name.
const auditLogger = "zkraft.audit"

// appendLine appends the event's line: "time LEVEL logger: " then the
// fields in AuditEvent's order, tab-separated, and result. Failures are
// at ERROR, the rest at INFO (ZooKeeper's Slf4jAuditLogger).
func (e *auditEvent) appendLine(b []byte, now time.Time) []byte {
	b = now.AppendFormat(b, auditTimeLayout)
	if e.result == auditFailure {
		b = append(b, " ERROR "...)
	} else {
		b = append(b, " INFO "...)
	}
	b = append(b, auditLogger+": "...)
	if e.session != 0 {
		b = appendField(b, "session", auditSessionID(e.session))
	}
	b = appendField(b, "user", e.user)
	b = appendField(b, "ip", e.ip)
	b = appendField(b, "operation", e.operation)
	b = appendField(b, "znode", e.znode)
	b = appendField(b, "znode_type", e.znodeType)
	b = appendField(b, "acl", e.acl)
	b = append(b, "result="...)
	b = append(b, e.result.String()...)
	return append(b, '\n')
}

// appendField appends "key=value\t" unless value is empty. ZooKeeper
// strips tabs, CR and LF from values, so that no value can end its line
// or make up a field; the other control characters go too (a digest user
// name is whatever a client sends).
func appendField(b []byte, key, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, key...)
	b = append(b, '=')
	for i := 0; i < len(value); i++ {
		if c := value[i]; c >= 0x20 && c != 0x7f {
			b = append(b, c)
		}
	}
	return append(b, '\t')
}

// auditSessionID is Java's "0x" + Long.toHexString: unsigned.
func auditSessionID(id int64) string { return "0x" + strconv.FormatUint(uint64(id), 16) }

// auditUser is ZooKeeper's AuthUtil.getUsers: the user name of each
// identity, comma-joined. An ip identity's name is the address, a
// digest's the part before its colon, x509's and sasl's the id; super has
// no provider in ZooKeeper, so no name.
func auditUser(ids []wire.Id) string {
	var b strings.Builder
	for _, id := range ids {
		name := id.ID
		switch id.Scheme {
		case "super":
			continue
		case "digest":
			name, _, _ = strings.Cut(id.ID, ":")
		}
		if strings.TrimSpace(name) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(name)
	}
	return b.String()
}

// serverUser is the user of the server's own operations (expiry and the
// deletions it makes): ZooKeeper takes its login's principal or the JVM's
// user.name; zkraft takes the process's user.
var serverUser = sync.OnceValue(func() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if name := os.Getenv("USER"); name != "" {
		return name
	}
	return "zkraft"
})

// auditQueue holds the lines waiting for the writer; its counters are in
// the server's metric set (so mntr and /metrics show them).
type auditQueue struct {
	dropped *metrics.Counter // lines dropped because the queue was full
	lost    *metrics.Counter // lines whose write (or file open) failed
	out     io.Writer        // WithAuditWriter; nil: the file
	limit   int              // auditQueueBytes; smaller in tests

	mu      sync.Mutex
	buf     []byte // queued lines
	lines   int
	running bool // a writer goroutine is draining buf
	failing bool // the last write failed and was reported (writer only)
}

func newAuditQueue(set *metrics.Set) *auditQueue {
	return &auditQueue{
		dropped: set.Counter("zkraft_audit_dropped"),
		lost:    set.Counter("zkraft_audit_write_errors"),
		limit:   auditQueueBytes,
	}
}

// push queues a line and reports whether the caller must start a writer.
// It never waits for one: when the queue is full the line is dropped.
func (q *auditQueue) push(line []byte) (start bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.buf)+len(line) > q.limit {
		q.dropped.Inc()
		return false
	}
	q.buf = append(q.buf, line...)
	q.lines++
	start, q.running = !q.running, true
	return start
}

// take hands the writer the queued lines, or stops it when there are none.
func (q *auditQueue) take() (batch []byte, lines int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.lines == 0 {
		q.running = false
		return nil, 0
	}
	batch, lines = q.buf, q.lines
	q.buf, q.lines = nil, 0
	return batch, lines
}

// abandon drops what is queued when no writer may start (the server is
// closing), counting it.
func (q *auditQueue) abandon() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.dropped.Add(int64(q.lines))
	q.buf, q.lines, q.running = nil, 0, false
}

// WithAuditWriter sends the audit log to w instead of its file (it is
// still written only with audit.enable). One goroutine writes at a time;
// an error from w is handled as a failed file write: counted, reported
// once, never passed to a request.
func WithAuditWriter(w io.Writer) Option { return func(s *Server) { s.auditQ.out = w } }

// auditing reports whether the audit log is on.
func (s *Server) auditing() bool { return s.cfg.Audit.Enable }

// audit queues ev's line.
func (s *Server) audit(ev auditEvent) {
	if !s.auditing() {
		return
	}
	if s.auditQ.push(ev.appendLine(nil, s.clock.Now())) {
		s.startAuditWriter()
	}
}

// startAuditWriter starts the goroutine that drains the queue; Close
// waits for it, so lines queued before Close are written.
func (s *Server) startAuditWriter() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.auditQ.abandon()
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go s.writeAudit()
}

// writeAudit writes batches until the queue is empty.
func (s *Server) writeAudit() {
	defer s.wg.Done()
	q := s.auditQ
	for {
		batch, lines := q.take()
		if lines == 0 {
			return
		}
		s.auditWritten(lines, s.writeAuditBatch(batch))
	}
}

// writeAuditBatch appends batch to the audit file, opened for each batch
// so that a rotated file (moved away by logrotate) is followed at once.
func (s *Server) writeAuditBatch(batch []byte) error {
	if w := s.auditQ.out; w != nil {
		_, err := w.Write(batch)
		return err
	}
	path := s.cfg.AuditFile()
	if path == "" {
		_, err := os.Stderr.Write(batch)
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(batch)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// auditWritten counts lost lines and reports the file failing once, and
// working again once.
func (s *Server) auditWritten(lines int, err error) {
	q := s.auditQ
	switch {
	case err != nil:
		q.lost.Add(int64(lines))
		if !q.failing {
			s.log.Warn("audit log: write failed; lines are lost (counted in zkraft_audit_write_errors) until a write succeeds",
				"file", s.auditDest(), "err", err)
		}
		q.failing = true
	case q.failing:
		s.log.Info("audit log: writes succeed again", "file", s.auditDest(), "lost_lines", q.lost.Value())
		q.failing = false
	}
}

// auditDest names where the audit log goes, for messages.
func (s *Server) auditDest() string {
	switch path := s.cfg.AuditFile(); {
	case s.auditQ.out != nil:
		return "(WithAuditWriter)"
	case path == "":
		return "(standard error)"
	default:
		return path
	}
}
