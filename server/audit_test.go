package server

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/internal/testlog"
	"github.com/zkraft/zkraft/metrics"
	"github.com/zkraft/zkraft/wire"
)

// auditLine is a parsed audit line: its level and its key=value fields.
type auditLine struct {
	level  string
	fields map[string]string
	keys   []string // in line order
}

// parseAuditLine reads "yyyy-MM-dd HH:mm:ss,SSS LEVEL zkraft.audit: k=v\tk=v...".
func parseAuditLine(t *testing.T, line string) auditLine {
	t.Helper()
	prefix, body, ok := strings.Cut(line, ": ")
	require.True(t, ok, "no logger prefix: %q", line)
	head := strings.Fields(prefix)
	require.Len(t, head, 4, "prefix %q", prefix)
	_, err := time.ParseInLocation(auditTimeLayout, head[0]+" "+head[1], time.Local)
	require.NoError(t, err)
	require.Equal(t, auditLogger, head[3])
	l := auditLine{level: head[2], fields: map[string]string{}}
	for _, kv := range strings.Split(body, "\t") {
		k, v, ok := strings.Cut(kv, "=")
		require.True(t, ok, "field %q of %q", kv, line)
		l.fields[k] = v
		l.keys = append(l.keys, k)
	}
	return l
}

// auditSink collects the audit log; writers fail with err when it is set.
type auditSink struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	err     error
	calls   int
	changed chan struct{}
}

func newAuditSink() *auditSink { return &auditSink{changed: make(chan struct{}, 1)} }

func (s *auditSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.signal()
	s.calls++
	if s.err != nil {
		return 0, s.err
	}
	return s.buf.Write(p)
}

func (s *auditSink) signal() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *auditSink) setErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

func (s *auditSink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitLines waits until the sink holds at least n lines and returns them.
func (s *auditSink) waitLines(t *testing.T, n int) []auditLine {
	t.Helper()
	return s.waitUntil(t, fmt.Sprintf("%d lines", n), func(lines []auditLine) bool { return len(lines) >= n })
}

// waitUntil waits until the sink's lines satisfy done and returns them.
func (s *auditSink) waitUntil(t *testing.T, what string, done func([]auditLine) bool) []auditLine {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		text := s.text()
		var lines []auditLine
		if text != "" {
			for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				lines = append(lines, parseAuditLine(t, l))
			}
		}
		if done(lines) {
			return lines
		}
		select {
		case <-s.changed:
		case <-deadline:
			t.Fatalf("waiting for %s in the audit log, have:\n%s", what, text)
		}
	}
}

// startAuditServer starts a server with the audit log on, written to sink.
func startAuditServer(t *testing.T, sink *auditSink, opts ...Option) *Server {
	t.Helper()
	return startTestServer(t, func(c *Config) { c.Audit.Enable = true },
		append([]Option{WithAuditWriter(sink)}, opts...)...)
}

// op is a line's operation, znode and result, for comparing sequences.
func (l auditLine) op() string {
	return l.fields["operation"] + " " + l.fields["znode"] + " " + l.fields["result"]
}

func TestAuditClientWrites(t *testing.T) {
	sink := newAuditSink()
	s := startAuditServer(t, sink)
	c := connect(t, s)
	session := fmt.Sprintf("0x%x", c.SessionID())
	require.NoError(t, c.AddAuth("digest", []byte("alice:pw")))

	_, err := c.Create("/a", []byte("x"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = c.Create("/a", nil, 0, zk.WorldACL(zk.PermAll))
	require.ErrorIs(t, err, zk.ErrNodeExists)
	_, err = c.Create("/a/e", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	seq, err := c.Create("/a/s-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	eseq, err := c.Create("/a/es-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, err = c.Set("/a", []byte("y"), -1)
	require.NoError(t, err)
	acl := append(zk.WorldACL(zk.PermRead), zk.DigestACL(zk.PermAll, "alice", "pw")...)
	_, err = c.SetACL("/a", acl, -1)
	require.NoError(t, err)
	require.NoError(t, c.Delete(seq, -1))
	_, err = c.Multi(
		&zk.CreateRequest{Path: "/m", Acl: zk.WorldACL(zk.PermAll)},
		&zk.SetDataRequest{Path: "/m", Data: []byte("z"), Version: -1},
		&zk.CheckVersionRequest{Path: "/m", Version: 1},
		&zk.DeleteRequest{Path: "/m", Version: -1},
	)
	require.NoError(t, err)
	res, err := c.Multi(
		&zk.CreateRequest{Path: "/m2", Acl: zk.WorldACL(zk.PermAll)},
		&zk.DeleteRequest{Path: "/missing", Version: -1},
	)
	require.True(t, err != nil || res[1].Error != nil, "the second op fails")
	c.Close()

	lines := sink.waitLines(t, 16)
	var ops []string
	for _, l := range lines {
		ops = append(ops, l.op())
	}
	require.Equal(t, []string{
		"createSession  success",
		"create /a success",
		"create /a failure",
		"create /a/e success",
		"create " + seq + " success",
		"create " + eseq + " success",
		"setData /a success",
		"setAcl /a success",
		"delete " + seq + " success",
		"create /m success",
		"setData /m success",
		"delete /m success",
		"multiOperation  failure",
		"closeSession  success",
		"ephemeralZNodeDeletionOnSessionCloseOrExpire /a/e success",
		"ephemeralZNodeDeletionOnSessionCloseOrExpire " + eseq + " success",
	}, ops)

	// Every line of the client carries its session, identities and address.
	require.Equal(t, []string{"session", "user", "ip", "operation", "result"}, lines[0].keys)
	require.Equal(t, "127.0.0.1", lines[0].fields["user"], "createSession comes before addauth")
	for _, l := range lines[1:14] {
		require.Equal(t, session, l.fields["session"], l.op())
		require.Equal(t, "127.0.0.1,alice", l.fields["user"], l.op())
		require.Equal(t, "127.0.0.1", l.fields["ip"], l.op())
	}
	require.Equal(t, []string{"session", "user", "ip", "operation", "znode", "znode_type", "result"}, lines[1].keys)
	wantTypes := map[int]string{1: "persistent", 2: "persistent", 3: "ephemeral", 4: "persistent_sequential", 5: "ephemeral_sequential", 9: "persistent"}
	for i, typ := range wantTypes {
		require.Equal(t, typ, lines[i].fields["znode_type"], lines[i].op())
	}
	require.Equal(t, "ERROR", lines[2].level, "failures are at ERROR")
	require.Equal(t, "INFO", lines[1].level)
	require.Equal(t, "world:anyone:r,digest:"+datatree.DigestID("alice:pw")+":cdrwa", lines[7].fields["acl"])
	require.NotContains(t, lines[6].fields, "acl", "acl is for setAcl only")
	require.NotContains(t, lines[12].fields, "znode", "a failed multi names no znode")

	// The server deletes the ephemerals: its user, no address.
	for _, l := range lines[14:] {
		require.Equal(t, session, l.fields["session"])
		require.Equal(t, serverUser(), l.fields["user"])
		require.NotContains(t, l.fields, "ip")
	}
}

// TestAuditExpiryAndReconfig: the leader writes an expiry with the
// server's user; a refused reconfig is a failure without a znode.
func TestAuditExpiryAndReconfig(t *testing.T) {
	sink := newAuditSink()
	s, clock := startFakeClockServer(t, func(c *Config) { c.Audit.Enable = true }, WithAuditWriter(sink))
	c := connect(t, s)
	session := fmt.Sprintf("0x%x", c.SessionID())
	_, err := c.IncrementalReconfig(nil, []string{"2"}, -1)
	require.ErrorIs(t, err, zk.ErrReconfigDisabled)
	_, err = c.Create("/e", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	lines := sink.waitLines(t, 3)
	require.Equal(t, "reconfig  failure", lines[1].op())
	require.Equal(t, "127.0.0.1", lines[1].fields["user"])

	clock.Advance(time.Minute) // past any negotiated timeout
	expiry := func(l auditLine) bool { return l.fields["operation"] == auditExpireSession }
	lines = sink.waitUntil(t, "the expiry and its deletion", func(lines []auditLine) bool {
		i := slices.IndexFunc(lines, expiry)
		return i >= 0 && i+1 < len(lines)
	})
	i := slices.IndexFunc(lines, expiry)
	require.Equal(t, map[string]string{"session": session, "user": serverUser(), "operation": "expireSession", "result": "success"}, lines[i].fields)
	require.Equal(t, map[string]string{"session": session, "user": serverUser(), "operation": auditEphemeralDeleted, "znode": "/e", "result": "success"}, lines[i+1].fields)
}

func TestAuditOffWritesNothing(t *testing.T) {
	sink := newAuditSink()
	s := startTestServer(t, nil, WithAuditWriter(sink))
	c := connect(t, s)
	_, err := c.Create("/a", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	c.Close()
	require.Empty(t, sink.text())
}

// TestAuditHTTPWrites checks the console's writes (server.AdminCreate...)
// and the AdminServer's commands: no session, the verified identities as
// the user, the caller's address as ip.
func TestAuditHTTPWrites(t *testing.T) {
	sink := newAuditSink()
	s := startAuditServer(t, sink)
	c := connect(t, s)
	_, err := c.Create("/secure", nil, 0, zk.DigestACL(zk.PermAll, "root", "secret"))
	require.NoError(t, err)
	c.Close()
	before := len(sink.waitLines(t, 3)) // createSession, create, closeSession

	ctx := context.Background()
	root := AdminCredentials{Authorization: "digest root:secret", RemoteIP: "127.0.0.1"}
	path, _, err := s.AdminCreate(ctx, root, "/secure/x", []byte("1"), false)
	require.NoError(t, err)
	seq, _, err := s.AdminCreate(ctx, root, "/secure/s-", nil, true)
	require.NoError(t, err)
	_, err = s.AdminSetData(ctx, root, path, []byte("2"), -1)
	require.NoError(t, err)
	require.NoError(t, s.AdminDelete(ctx, root, path, -1))
	err = s.AdminDelete(ctx, root, path, -1)
	require.ErrorIs(t, err, wire.CodeNoNode)
	mallory := AdminCredentials{Authorization: "digest mallory:guess", RemoteIP: "10.0.0.9:5555"}
	_, _, err = s.AdminCreate(ctx, mallory, "/secure/y", nil, false)
	require.ErrorIs(t, err, ErrAdminNotAuthenticated)
	s.AuditAdminCommand("snapshot", root, true)
	s.AuditAdminCommand("restore", mallory, false)

	lines := sink.waitLines(t, before+8)[before:]
	want := []struct{ op, user, ip, typ string }{
		{"create /secure/x success", "127.0.0.1,root", "127.0.0.1", "persistent"},
		{"create " + seq + " success", "127.0.0.1,root", "127.0.0.1", "persistent_sequential"},
		{"setData /secure/x success", "127.0.0.1,root", "127.0.0.1", ""},
		{"delete /secure/x success", "127.0.0.1,root", "127.0.0.1", ""},
		{"delete /secure/x failure", "127.0.0.1,root", "127.0.0.1", ""},
		{"create /secure/y failure", "10.0.0.9", "10.0.0.9", "persistent"},
		{"snapshot  success", "127.0.0.1,root", "127.0.0.1", ""},
		{"restore  failure", "10.0.0.9", "10.0.0.9", ""},
	}
	require.Len(t, lines, len(want))
	for i, w := range want {
		l := lines[i]
		require.Equal(t, w.op, l.op())
		require.NotContains(t, l.fields, "session", w.op)
		require.Equal(t, w.user, l.fields["user"], w.op)
		require.Equal(t, w.ip, l.fields["ip"], w.op)
		require.Equal(t, w.typ, l.fields["znode_type"], w.op)
	}
}

// TestAuditWriteErrorsNeverFailRequests: with the audit file's disk full,
// writes go on; the lost lines are counted and reported once.
func TestAuditWriteErrorsNeverFailRequests(t *testing.T) {
	sink := newAuditSink()
	sink.setErr(syscall.ENOSPC)
	var logs testlog.Buffer
	s := startAuditServer(t, sink, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	c := connect(t, s)
	for i := range 5 {
		_, err := c.Create(fmt.Sprintf("/n%d", i), nil, 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err, "the audit log never fails a request")
	}
	lost := s.auditQ.lost
	require.Eventually(t, func() bool { return lost.Value() >= 6 }, 10*time.Second, time.Millisecond,
		"createSession and five creates are lost")
	require.Equal(t, 1, strings.Count(logs.String(), "audit log: write failed"), "reported once:\n%s", logs.String())
	require.Contains(t, logs.String(), "no space left on device")
	require.Contains(t, monitorRows(s), "zkraft_audit_write_errors")
	require.EqualValues(t, lost.Value(), monitorRows(s)["zkraft_audit_write_errors"])

	sink.setErr(nil)
	_, err := c.Create("/after", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.Equal(t, "create /after success", sink.waitLines(t, 1)[0].op())
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "audit log: writes succeed again") },
		10*time.Second, time.Millisecond)
}

// TestAuditFullQueueDrops: a writer that does not return holds no request;
// the lines that do not fit the queue are dropped and counted.
func TestAuditFullQueueDrops(t *testing.T) {
	w := &blockingWriter{entered: make(chan struct{}), release: make(chan struct{})}
	small := func(s *Server) { s.auditQ.limit = 400 }
	s := startTestServer(t, func(c *Config) { c.Audit.Enable = true }, WithAuditWriter(w), small)
	t.Cleanup(func() { close(w.release) }) // before the server's Close, which waits for the writer
	c := connect(t, s)
	<-w.entered // the writer holds createSession's line
	for i := range 20 {
		_, err := c.Create(fmt.Sprintf("/n%d", i), nil, 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err)
	}
	require.Positive(t, s.auditQ.dropped.Value())
	require.EqualValues(t, s.auditQ.dropped.Value(), monitorRows(s)["zkraft_audit_dropped"])
}

func TestAuditQueueBound(t *testing.T) {
	q := newAuditQueue(metrics.NewSet())
	q.limit = 10
	require.True(t, q.push([]byte("1234\n")), "the first line starts a writer")
	require.False(t, q.push([]byte("5678\n")), "one is running")
	require.False(t, q.push([]byte("x\n")), "full")
	require.EqualValues(t, 1, q.dropped.Value())
	batch, n := q.take()
	require.Equal(t, "1234\n5678\n", string(batch))
	require.Equal(t, 2, n)
	_, n = q.take()
	require.Zero(t, n)
	require.True(t, q.push([]byte("y\n")), "the writer stopped: the next line starts one")
}

func TestAuditLineFormat(t *testing.T) {
	ev := auditEvent{session: -0x7fffffffffffffff - 1, user: "a\tb\nc\x1b", ip: "::1", operation: "create",
		znode: "/x", znodeType: "persistent", result: auditSuccess}
	now := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.Local)
	require.Equal(t, "2024-05-06 07:08:09,123 INFO zkraft.audit: session=0x8000000000000000\tuser=abc\tip=::1\t"+
		"operation=create\tznode=/x\tznode_type=persistent\tresult=success\n", string(ev.appendLine(nil, now)))
	require.Equal(t, "2024-05-06 07:08:09,123 ERROR zkraft.audit: operation=snapshot\tresult=failure\n",
		string((&auditEvent{operation: "snapshot", result: auditFailure}).appendLine(nil, now)))
	require.Equal(t, "127.0.0.1,bob,CN=x,carol", auditUser([]wire.Id{{Scheme: "ip", ID: "127.0.0.1"},
		{Scheme: "digest", ID: "bob:h4sh="}, {Scheme: "super"}, {Scheme: "x509", ID: "CN=x"}, {Scheme: "sasl", ID: "carol"}}))
}

func TestAuditFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	s := startTestServer(t, func(c *Config) { c.Audit = Audit{Enable: true, File: path} })
	c := connect(t, s)
	_, err := c.Create("/a", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	c.Close()
	require.NoError(t, s.Close(), "Close writes what is queued")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.GreaterOrEqual(t, len(lines), 2)
	require.Equal(t, "create /a success", parseAuditLine(t, lines[1]).op())
}

func TestAuditConfig(t *testing.T) {
	c, err := parseCfg("clientPort=1\naudit.enable=true\n")
	require.NoError(t, err)
	require.True(t, c.Audit.Enable)
	require.Empty(t, c.Ignored)
	c, err = ParseConfig(strings.NewReader("clientPort=1\nzookeeper.audit.enable=TRUE\ndataDir=/d\naudit.file=a.log\n"), "/base")
	require.NoError(t, err)
	require.True(t, c.Audit.Enable)
	require.Equal(t, "/base/a.log", c.AuditFile())
	c.Audit.File = ""
	require.Equal(t, "/d/"+DefaultAuditFile, c.AuditFile(), "the data log dir, which defaults to dataDir")
	c.DataLogDir = "/l"
	require.Equal(t, "/l/"+DefaultAuditFile, c.AuditFile())
	require.Empty(t, DefaultConfig().AuditFile(), "in memory: standard error")
	_, err = parseCfg("clientPort=1\naudit.enable=yes\n")
	require.ErrorContains(t, err, "audit.enable")
	c, err = parseCfg("clientPort=1\naudit.impl.class=x.Y\n")
	require.NoError(t, err)
	require.Equal(t, "not supported by zkraft", c.IgnoredKeys[0].Reason())
}

// blockingWriter takes the first write and returns only once released.
type blockingWriter struct {
	once             sync.Once
	entered, release chan struct{}
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.entered) })
	<-w.release
	return len(p), nil
}

// monitorRows are the server's mntr figures by key.
func monitorRows(s *Server) map[string]any {
	out := map[string]any{}
	for _, r := range s.Monitor() {
		out[r.Key] = r.Value
	}
	return out
}
