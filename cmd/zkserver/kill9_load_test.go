package main

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/linearizable"
)

// The SIGKILL test's load (kill9_test.go): sessions writing and reading
// through go-zookeeper, the history porcupine checks, and the checks of
// every server's data afterwards.

// homeFirst is a go-zookeeper HostProvider that tries the session's home
// server first and then the others, so that the test's sessions start
// spread over every server (go-zookeeper's own provider shuffles them); a
// session whose server fails moves on to the next one.
type homeFirst struct {
	home string

	mu         sync.Mutex
	servers    []string
	curr, last int
}

func (p *homeFirst) Init(servers []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.servers = append([]string{p.home}, slices.DeleteFunc(slices.Clone(servers), func(s string) bool { return s == p.home })...)
	p.curr, p.last = -1, -1
	return nil
}

func (p *homeFirst) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.servers)
}

func (p *homeFirst) Next() (server string, retryStart bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.curr = (p.curr + 1) % len(p.servers)
	retryStart = p.curr == p.last
	if p.last == -1 {
		p.last = 0
	}
	return p.servers[p.curr], retryStart
}

func (p *homeFirst) Connected() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = p.curr
}

func ownKey(i int) string      { return fmt.Sprintf("/own-%d", i) }
func ownValue(i, n int) string { return fmt.Sprintf("own%d:%08d", i, n) }
func sharedKey(k int) string   { return fmt.Sprintf("/lin-%d", k) }
func seqData(i, n int) string  { return fmt.Sprintf("c%d-%d", i, n) }

// ownNumber is the counter in an ownValue (0 if v is none).
func ownNumber(v string) int {
	n, _ := strconv.Atoi(v[strings.IndexByte(v, ':')+1:])
	return n
}

// seqNumber is the sequence number ZooKeeper appended to a name.
func seqNumber(name string) int {
	n, _ := strconv.Atoi(name[max(len(name)-10, 0):])
	return n
}

// connectHome opens a session on the ensemble at addrs that starts on home.
func connectHome(addrs []string, home string) (*zk.Conn, error) {
	c, _, err := zk.Connect(addrs, 10*time.Second, zk.WithHostProvider(&homeFirst{home: home}), zk.WithLogger(nopLogger{}))
	return c, err
}

// kill9Load is the test's clients: each session has a writer, which sets
// its own counter znode to 1, 2, 3..., and a mixer, which reads and writes
// the shared znodes (linearizable.StepOn), reads the counters of all
// sessions and creates sequential znodes. Reads and writes of the shared
// and counter znodes go in one history for porcupine.
type kill9Load struct {
	h     *linearizable.History
	stop  chan struct{}
	wg    sync.WaitGroup
	conns []*zk.Conn
	// gate is held for reading by every client operation, and for writing
	// while the clients are paused.
	gate sync.RWMutex

	mu      sync.Mutex
	acked   []int       // per session: the last counter value acknowledged
	creates []seqCreate // every sequential create issued
}

// seqCreate is one sequential create and its outcome.
type seqCreate struct {
	data      string
	call, ret int64  // on the history's clock
	code      string // as linearizable.CodeOf
	name      string // the created node's name, when ok
}

func newKill9Load(t *testing.T, addrs []string) *kill9Load {
	t.Helper()
	l := &kill9Load{h: linearizable.NewHistory(), stop: make(chan struct{}), acked: make([]int, kill9Clients)}
	setup, err := connectHome(addrs, addrs[0])
	require.NoError(t, err)
	defer setup.Close()
	create := func(path, data string) {
		call := l.h.Now()
		tries := 0
		untilServed(t, "create "+path, func() error {
			_, err := setup.Create(path, []byte(data), 0, zk.WorldACL(zk.PermAll))
			if tries++; tries > 1 && err == zk.ErrNodeExists {
				return nil // an earlier try landed, its reply was lost
			}
			return err
		})
		if strings.HasPrefix(path, "/own-") {
			l.h.Add(-1, linearizable.Input{Op: "create", Key: path, Value: data, Version: -1}, call, linearizable.Output{Code: "ok"})
		}
	}
	create(kill9SeqParent, "")
	for i := 0; i < kill9Clients; i++ {
		create(ownKey(i), ownValue(i, 0))
	}
	for i := 0; i < kill9Clients; i++ {
		c, err := connectHome(addrs, addrs[i%len(addrs)])
		require.NoError(t, err)
		l.conns = append(l.conns, c)
		l.wg.Add(2)
		go func() { defer l.wg.Done(); l.writer(i, c) }()
		go func() { defer l.wg.Done(); l.mixer(i, c) }()
	}
	t.Cleanup(func() { l.stopClients(nil) })
	return l
}

func (l *kill9Load) stopped() bool {
	select {
	case <-l.stop:
		return true
	default:
		return false
	}
}

// writer sets session i's counter znode to ever higher values.
func (l *kill9Load) writer(i int, c *zk.Conn) {
	for n := 1; !l.stopped(); n++ {
		l.gate.RLock()
		in := linearizable.Input{Op: "set", Key: ownKey(i), Value: ownValue(i, n), Version: -1}
		call := l.h.Now()
		st, err := c.Set(in.Key, []byte(in.Value), -1)
		var out linearizable.Output
		out.Code, _ = linearizable.CodeOf(err)
		if err == nil {
			out.Version = st.Version
			l.mu.Lock()
			l.acked[i] = n
			l.mu.Unlock()
		}
		l.h.Add(100+i, in, call, out)
		l.gate.RUnlock()
		if out.Code == linearizable.Unknown {
			linearizable.WaitSession(c, l.stop)
		}
	}
}

// mixer issues session i's other operations.
func (l *kill9Load) mixer(i int, c *zk.Conn) {
	rng := rand.New(rand.NewSource(int64(i)))
	known := map[string]int32{}
	for n := 0; !l.stopped(); n++ {
		l.gate.RLock()
		code := l.mix(i, n, c, rng, known)
		l.gate.RUnlock()
		if code == linearizable.Unknown {
			linearizable.WaitSession(c, l.stop)
		}
	}
}

// mix issues one of session i's other operations and returns its outcome
// (unknown also for a read that got no definite answer, which is not
// recorded).
func (l *kill9Load) mix(i, n int, c *zk.Conn, rng *rand.Rand, known map[string]int32) string {
	switch r := rng.Intn(10); {
	case r < 6: // the shared znodes
		in := linearizable.Input{Key: sharedKey(rng.Intn(kill9SharedKeys)), Value: fmt.Sprintf("s%d-%d", i, n), Version: -1}
		if v, ok := known[in.Key]; ok && rng.Intn(3) > 0 {
			in.Version = v
		}
		call := l.h.Now()
		out, ok := linearizable.StepOn(c, rng, &in, known)
		if !ok {
			return linearizable.Unknown
		}
		l.h.Add(i, in, call, out)
		return out.Code
	case r < 8: // a sequential create
		sc := seqCreate{data: seqData(i, n), call: l.h.Now()}
		path, err := c.Create(kill9SeqParent+"/item-", []byte(sc.data), zk.FlagSequence, zk.WorldACL(zk.PermAll))
		sc.ret = l.h.Now()
		sc.code, _ = linearizable.CodeOf(err)
		if err == nil {
			sc.name = path[len(kill9SeqParent)+1:]
		}
		l.mu.Lock()
		l.creates = append(l.creates, sc)
		l.mu.Unlock()
		return sc.code
	default: // some session's counter
		in := linearizable.Input{Op: "get", Key: ownKey(rng.Intn(kill9Clients))}
		call := l.h.Now()
		var out linearizable.Output
		if _, ok := linearizable.Read(c, in.Key, &out); !ok {
			return linearizable.Unknown
		}
		l.h.Add(i, in, call, out)
		return out.Code
	}
}

// pause waits for the clients' operations in flight and holds back new
// ones until resume.
func (l *kill9Load) pause(t *testing.T) {
	t.Helper()
	paused := make(chan struct{})
	go func() { l.gate.Lock(); close(paused) }()
	select {
	case <-paused:
	case <-time.After(30 * time.Second):
		t.Fatal("a client's operation hung for 30s on a healthy ensemble")
	}
}

func (l *kill9Load) resume() { l.gate.Unlock() }

// ackedOwn returns, per session, the last counter value acknowledged so far.
func (l *kill9Load) ackedOwn() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.acked)
}

func (l *kill9Load) seqCounts() (all, ok, unknown int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	all = len(l.creates)
	for _, c := range l.creates {
		switch c.code {
		case "ok":
			ok++
		case linearizable.Unknown:
			unknown++
		}
	}
	return all, ok, unknown
}

// waitProgress waits until the clients have completed n more operations.
func (l *kill9Load) waitProgress(t *testing.T, n int) {
	t.Helper()
	want := l.h.Completed() + n
	deadline := time.Now().Add(30 * time.Second)
	for l.h.Completed() < want {
		if time.Now().After(deadline) {
			t.Fatalf("the clients completed %d of %d operations in 30s: the ensemble serves no writes", l.h.Completed()-want+n, n)
		}
		time.Sleep(10 * time.Millisecond) // poll interval of the condition above
	}
}

// stopClients stops the clients and closes their sessions; t is nil in
// the cleanup, which only makes sure of that.
func (l *kill9Load) stopClients(t *testing.T) {
	if l.stopped() {
		return
	}
	close(l.stop)
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		if t != nil {
			t.Fatal("a client's operation hung for 30s after the last restart")
		}
	}
	for _, c := range l.conns {
		c.Close()
	}
}

// checkServer connects to addr alone and, once it serves (it refuses
// clients until it has caught up with the leader), reads every counter
// znode after a sync: none may be below acked, the values acknowledged
// before. The reads go in the history as client id.
func (l *kill9Load) checkServer(t *testing.T, addr string, id int, acked []int) {
	t.Helper()
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	defer c.Close()
	untilServed(t, "sync on "+addr, func() error { _, err := c.Sync("/"); return err })
	for i, want := range acked {
		in := linearizable.Input{Op: "get", Key: ownKey(i)}
		call := l.h.Now()
		out := l.read(t, c, addr, in.Key)
		l.h.Add(id, in, call, out)
		require.Equal(t, "ok", out.Code, "%s on %s", in.Key, addr)
		require.GreaterOrEqual(t, ownNumber(out.Value), want,
			"%s on %s: %q, below the acknowledged %q: an acknowledged write is lost", in.Key, addr, out.Value, ownValue(i, want))
	}
}

// read is a sync and get of key with a definite answer, retried while the
// server is not serving.
func (l *kill9Load) read(t *testing.T, c *zk.Conn, addr, key string) linearizable.Output {
	t.Helper()
	deadline := time.Now().Add(servedWithin)
	for {
		var out linearizable.Output
		if _, ok := linearizable.Read(c, key, &out); ok {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("no definite read of %s on %s within %v", key, addr, servedWithin)
		}
		time.Sleep(50 * time.Millisecond) // retry interval of the condition above
	}
}

// dump reads, after a sync, the data and versions of the test's znodes on
// the server at addr alone, and the names and data of the sequential ones.
func (l *kill9Load) dump(t *testing.T, addr string, id int) []string {
	t.Helper()
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	defer c.Close()
	untilServed(t, "sync on "+addr, func() error { _, err := c.Sync("/"); return err })
	var lines []string
	keys := []string{}
	for k := 0; k < kill9SharedKeys; k++ {
		keys = append(keys, sharedKey(k))
	}
	for i := 0; i < kill9Clients; i++ {
		keys = append(keys, ownKey(i))
	}
	for _, key := range keys {
		in := linearizable.Input{Op: "get", Key: key}
		call := l.h.Now()
		out := l.read(t, c, addr, key)
		l.h.Add(id, in, call, out)
		lines = append(lines, fmt.Sprintf("%s %s %q v%d", key, out.Code, out.Value, out.Version))
	}
	var kids []string
	untilServed(t, "children of "+kill9SeqParent+" on "+addr, func() (err error) {
		if _, err = c.Sync(kill9SeqParent); err == nil {
			kids, _, err = c.Children(kill9SeqParent)
		}
		return err
	})
	sort.Strings(kids)
	// The data of the sequential znodes, fetched by a few goroutines at
	// once (the session pipelines their requests).
	data := make([]string, len(kids))
	var wg sync.WaitGroup
	var failed error
	var mu sync.Mutex
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := w; j < len(kids); j += 8 {
				b, _, err := c.Get(kill9SeqParent + "/" + kids[j])
				if err != nil {
					mu.Lock()
					failed = fmt.Errorf("get %s/%s on %s: %w", kill9SeqParent, kids[j], addr, err)
					mu.Unlock()
					return
				}
				data[j] = string(b)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, failed)
	for j, k := range kids {
		lines = append(lines, fmt.Sprintf("%s/%s %q", kill9SeqParent, k, data[j]))
	}
	return lines
}

// converge dumps every server until all dumps are the same (a write of
// unknown outcome may still be on its way to a server) and returns it.
func (l *kill9Load) converge(t *testing.T, addrs []string) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		dumps := make([][]string, len(addrs))
		for i, a := range addrs {
			dumps[i] = l.dump(t, a, 400+i)
		}
		same := true
		for i := 1; i < len(dumps); i++ {
			same = same && slices.Equal(dumps[0], dumps[i])
		}
		if same {
			return dumps[0]
		}
		if time.Now().After(deadline) {
			for i := 1; i < len(dumps); i++ {
				if !slices.Equal(dumps[0], dumps[i]) {
					t.Errorf("server %d differs from server 1:\n%s", i+1, lineDiff(dumps[0], dumps[i]))
				}
			}
			t.FailNow()
		}
		time.Sleep(100 * time.Millisecond) // retry interval of the condition above
	}
}

// lineDiff lists the lines only in a (-) and only in b (+), at most 20.
func lineDiff(a, b []string) string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, "- "+x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, "+ "+x)
		}
	}
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("... %d more", len(out)-20))
	}
	return strings.Join(out, "\n")
}

// checkSeq checks the sequential znodes of a final dump against the
// creates issued.
func (l *kill9Load) checkSeq(t *testing.T, dump []string) {
	t.Helper()
	l.mu.Lock()
	creates := slices.Clone(l.creates)
	l.mu.Unlock()
	present := map[string]string{} // name -> data
	prefix := kill9SeqParent + "/"
	for _, line := range dump {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			name, quoted, _ := strings.Cut(rest, " ")
			data, err := strconv.Unquote(quoted)
			require.NoError(t, err, line)
			present[name] = data
		}
	}
	require.NoError(t, checkSeqCreates(creates, present))
}

// checkSeqCreates checks sequential creates against the children found
// at the end: every acknowledged create is there under the name it was
// given, no two got one number, their numbers follow real time (one that
// returned before another was called has the lower number), and every
// child is the work of a create that was acknowledged or has an unknown
// outcome.
func checkSeqCreates(creates []seqCreate, present map[string]string) error {
	issued := map[string]seqCreate{}
	var acked []seqCreate
	byNumber := map[int]string{}
	for _, c := range creates {
		issued[c.data] = c
		if c.code != "ok" {
			continue
		}
		if got, ok := present[c.name]; !ok || got != c.data {
			return fmt.Errorf("acknowledged create of %s (%q) lost: found %q", c.name, c.data, got)
		}
		if other, dup := byNumber[seqNumber(c.name)]; dup {
			return fmt.Errorf("creates of %q and %q both got number %d", other, c.data, seqNumber(c.name))
		}
		byNumber[seqNumber(c.name)] = c.data
		acked = append(acked, c)
	}
	for name, data := range present {
		c, ok := issued[data]
		if !ok || (c.code != "ok" && c.code != linearizable.Unknown) {
			return fmt.Errorf("%s (%q) was never created, or its create failed", name, data)
		}
		if c.code == "ok" && c.name != name {
			return fmt.Errorf("%q is both %s and %s", data, c.name, name)
		}
	}
	// Walking down the numbers, each create must have been called before
	// every create with a higher number returned.
	sort.Slice(acked, func(i, j int) bool { return seqNumber(acked[i].name) > seqNumber(acked[j].name) })
	minRet, by := int64(1<<62), ""
	for _, c := range acked {
		if c.call > minRet {
			return fmt.Errorf("%s (%q) was created after %s returned, with a lower number", c.name, c.data, by)
		}
		if c.ret < minRet {
			minRet, by = c.ret, c.name
		}
	}
	return nil
}

// TestCheckSeqCreatesHasTeeth: a lost, duplicated, phantom or out-of-order
// sequential create fails the check.
func TestCheckSeqCreatesHasTeeth(t *testing.T) {
	name := func(n int) string { return fmt.Sprintf("item-%010d", n) }
	a := seqCreate{data: "a", call: 0, ret: 10, code: "ok", name: name(1)}
	b := seqCreate{data: "b", call: 20, ret: 30, code: "ok", name: name(2)}
	u := seqCreate{data: "u", call: 5, ret: 6, code: linearizable.Unknown}
	good := map[string]string{name(1): "a", name(2): "b"}
	require.NoError(t, checkSeqCreates([]seqCreate{a, b, u}, good))
	require.NoError(t, checkSeqCreates([]seqCreate{a, b, u}, map[string]string{name(1): "a", name(2): "b", name(3): "u"}))
	require.ErrorContains(t, checkSeqCreates([]seqCreate{a, b}, map[string]string{name(1): "a"}), "lost")
	require.ErrorContains(t, checkSeqCreates([]seqCreate{a, b}, map[string]string{name(1): "a", name(2): "b", name(3): "x"}), "never created")
	swapped := []seqCreate{a, b}
	swapped[0].name, swapped[1].name = name(2), name(1)
	require.ErrorContains(t, checkSeqCreates(swapped, map[string]string{name(2): "a", name(1): "b"}), "with a lower number")
	dup := []seqCreate{a, b}
	dup[1].name = name(1)
	require.Error(t, checkSeqCreates(dup, map[string]string{name(1): "a"}))
	// Overlapping creates may be numbered either way.
	b.call = 5
	b.name, a.name = name(1), name(2)
	require.NoError(t, checkSeqCreates([]seqCreate{a, b}, map[string]string{name(2): "a", name(1): "b"}))
}
