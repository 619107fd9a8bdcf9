package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/internal/realzk"
)

// -op storm and -op storm-stop: a reconnect storm after a leader failover
// (issue 30). -n sessions (default 20,000) are opened over the ensemble,
// session i first on server i mod the servers' number but given all of
// them, with -session-timeout (30 s is the figure of the issue); each
// creates the ephemeral /storm/e-i, and /storm/w-i, on which it sets a
// data watch. A node of its own per session makes the watch check exact:
// the one change of /storm/w-i must give session i exactly one
// NodeDataChanged event for that path, so a lost watch and a duplicated
// notification are both seen per session (with a node shared by many
// sessions, one extra change would hide a lost watch and vice versa).
//
// Then the leader (srvr's Mode) fails: storm SIGKILLs it, storm-stop
// SIGSTOPs it for the session timeout plus stormStopExtra and then
// SIGCONTs it. From that moment zkbench measures, through go-zookeeper's
// event callback on every session, when each session that lost its
// connection had its session again (StateHasSession), and whether its
// session id stayed the same and it never saw StateExpired. Once every
// session is back, one other session changes every /storm/w-i once;
// each watch must fire exactly once, and every /storm/e-i must still
// exist. A leaderWatch (srvr every 250 ms) counts elections (epoch
// increases) from the failure to the end of the checks: one is the
// failover, a second one is a failure of the test. The server processes'
// RSS is sampled every 200 ms over the same span (the peak of their sum
// is reported) and their CPU time is summed over it. A killed leader is
// restarted after the checks, so later rounds again start from the whole
// ensemble.
//
// The sessions live in worker processes, at most stormPerWorker each
// (stormpool.go, stormworker.go, stormwire.go), since one process may
// hold no more sockets than its open-files limit (a hard 20,000 here);
// the workers forward every session event with its time, and the checks
// above are made here, on the parent's tallies, as before.

const (
	defaultStormN   = 20000
	stormSpareFiles = 300 // open files beside the sessions' sockets
	// stormBuffer caps a storm session's receive buffer: go-zookeeper
	// allocates 1.5 MB per connection, again at every reconnection, and
	// 19,600 sessions reconnecting over and over grew zkbench to 22 GB
	// of RSS. A session here receives only small replies and events.
	stormBuffer       = 64 << 10
	stormRoot         = "/storm"
	stormStopExtra    = 5 * time.Second        // storm-stop: paused this much past the session timeout
	stormBackWait     = 3 * time.Minute        // the longest wait for every session, past the pause
	stormStable       = time.Second            // every session back for this long ends the wait
	stormWatchWait    = time.Minute            // the longest wait for the watches to fire
	stormDupGrace     = 2 * time.Second        // then this long for duplicates
	stormRSSEvery     = 200 * time.Millisecond // RSS sampling
	stormPollEvery    = 50 * time.Millisecond
	stormResumeSettle = 2 * time.Second // storm-stop: after SIGCONT, before the checks
)

// stormResult is one storm on one target.
type stormResult struct {
	Round      int     `json:"round"`
	Target     string  `json:"target"`
	Mode       string  `json:"mode"` // kill or stop
	Leader     string  `json:"leader"`
	LastBackMs float64 `json:"last_session_back_ms"`
	stormCounts
	IDChanged         int      `json:"session_id_changed"`
	EphemeralsMissing int      `json:"ephemerals_missing"`
	Elections         int      `json:"elections"`
	SecondElections   int      `json:"second_elections"` // elections after the first
	PeakRSS           int64    `json:"peak_rss_bytes"`
	RSSBefore         int64    `json:"rss_before_bytes"`
	CPUSeconds        float64  `json:"server_cpu_s"`
	SpanSeconds       float64  `json:"span_s"` // failure to the end of the checks
	NewLeader         string   `json:"new_leader,omitempty"`
	Notes             []string `json:"notes,omitempty"`
}

// failed reports what the storm got wrong, or "" (the goal's checks
// other than the time).
func (r *stormResult) failed() string {
	var bad []string
	add := func(n int, what string) {
		if n > 0 {
			bad = append(bad, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(r.NotBack, "sessions not back")
	add(r.Expired, "sessions expired")
	add(r.IDChanged, "session ids changed")
	add(r.EphemeralsMissing, "ephemerals missing")
	add(r.Missing, "watches missing")
	add(r.Duplicated, "watches duplicated")
	add(r.Unexpected, "unexpected watch events")
	add(r.SecondElections, "second elections")
	return strings.Join(bad, ", ")
}

// runStorm starts the targets itself (after raising the open-files limit,
// which the server processes inherit) and runs the rounds.
func runStorm(ctx context.Context, o *options, out io.Writer) error {
	if o.n == 0 {
		o.n = defaultStormN
	}
	// The sessions live in worker processes (stormpool.go), each under
	// its own limit; the servers inherit this one, and after a failover
	// one of them may hold most of the sessions.
	note, err := raiseOpenFilesMost(uint64(o.n + stormSpareFiles))
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(out, note)
	}
	targets, err := startTargets(ctx, o)
	defer stopTargets(targets)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if len(t.addrs) < 3 || t.members == nil {
			return fmt.Errorf("-op %s: target %s is not an ensemble whose processes zkbench runs (zkserver3, zkserver5, zookeeper3, zookeeper5)", o.op, t.name)
		}
	}
	rep := newStormReporter(out, o, targets)
	rep.header()
	for round := 1; round <= o.rounds; round++ {
		for _, t := range targets {
			res, err := stormRound(ctx, o, t)
			if errors.Is(err, context.Canceled) {
				err = errors.New("interrupted")
			}
			if err != nil {
				return fmt.Errorf("%s (%s), round %d: %w", t.label, t.name, round, err)
			}
			res.Round, res.Target = round, t.label
			rep.add(res)
		}
	}
	return rep.finish()
}

func stormPath(kind string, i int) string { return fmt.Sprintf("%s/%s-%d", stormRoot, kind, i) }

// openStormConn opens session i on addrs[i mod len], with cb as its
// event callback, and creates its ephemeral, its watched node and the
// watch (in a worker process, stormworker.go).
func openStormConn(ctx context.Context, timeout time.Duration, addrs []string, i int, cb func(zk.Event)) (*zk.Conn, error) {
	c, events, err := zk.Connect(addrs, timeout, zk.WithHostProvider(&orderedHosts{servers: addrs, first: i}),
		zk.WithLogger(quietLogger{}), dialOption(), zk.WithEventCallback(cb), zk.WithMaxBufferSize(stormBuffer))
	if err != nil {
		return nil, err
	}
	if _, err := awaitSession(ctx, &session{Conn: c, events: events}, addrs, timeout); err != nil {
		return nil, err
	}
	// A connection lost on the way (a loaded server dropping clients) is
	// retried on the same session; it shows as lossesBefore in the report.
	if _, _, err := retryZK(ctx, func() (string, bool, error) {
		p, err := c.Create(stormPath("e", i), nil, zk.FlagEphemeral, openACL)
		if errors.Is(err, zk.ErrNodeExists) {
			err = nil // a retry of a create that went through
		}
		return p, false, err
	}); err != nil {
		c.Close()
		return nil, fmt.Errorf("create %s: %w", stormPath("e", i), err)
	}
	if _, _, err := retryZK(ctx, func() (string, bool, error) {
		p, err := c.Create(stormPath("w", i), nil, 0, openACL)
		if errors.Is(err, zk.ErrNodeExists) {
			err = nil
		}
		return p, false, err
	}); err != nil {
		c.Close()
		return nil, fmt.Errorf("create %s: %w", stormPath("w", i), err)
	}
	if _, _, err := retryZK(ctx, func() ([]byte, *zk.Stat, error) {
		b, st, _, err := c.GetW(stormPath("w", i))
		return b, st, err
	}); err != nil {
		c.Close()
		return nil, fmt.Errorf("watch %s: %w", stormPath("w", i), err)
	}
	return c, nil
}

// stormRound runs one storm on t.
func stormRound(ctx context.Context, o *options, t *target) (*stormResult, error) {
	stop := o.op == opStormStop
	res := &stormResult{Mode: "kill"}
	if stop {
		res.Mode = "stop"
	}
	addrs := t.addrs
	checker, err := connect(ctx, addrs, o.sessionTimeout)
	if err != nil {
		return nil, err
	}
	defer checker.close()
	if _, err := checker.Create(stormRoot, nil, 0, openACL); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return nil, fmt.Errorf("create %s: %w", stormRoot, err)
	}
	pool, err := openStormPool(ctx, o, addrs)
	if err != nil {
		closeStorm(checker.Conn, o.n)
		return nil, fmt.Errorf("opening %d sessions: %w", o.n, err)
	}
	defer func() {
		pool.close()
		closeStorm(checker.Conn, o.n)
	}()
	sessions := pool.sessions
	if err := pool.report(ctx); err != nil {
		return nil, err
	}
	lostBefore := 0
	for _, s := range sessions {
		s.id, s.on = s.sid, s.server
		if s.tally.lossesBefore() > 0 {
			lostBefore++
		}
	}
	if lostBefore > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d sessions lost their connection (and got it back) while the sessions were being opened, before the failure", lostBefore))
	}
	leader, err := findLeader(ctx, addrs, leaderFindWait)
	if err != nil {
		return nil, err
	}
	res.Leader = addrs[leader]
	pids := serverPIDs(addrs)
	leaderPID := pids[leader]
	if stop && leaderPID == 0 {
		return nil, fmt.Errorf("no process found listening on the leader %s", addrs[leader])
	}
	rss := startRSSPeak(pids)
	cpuBefore := perPIDTimes(pids)
	watch := watchLeaders(addrs, 250*time.Millisecond)

	t0 := time.Now()
	for _, s := range sessions {
		s.tally.arm(t0)
	}
	var resumed chan error
	if stop {
		if err := pauseProcess(leaderPID); err != nil {
			watch.finish()
			rss.finish()
			return nil, fmt.Errorf("SIGSTOP %d: %w", leaderPID, err)
		}
		resumed = make(chan error, 1)
		go func() {
			time.Sleep(o.sessionTimeout + stormStopExtra)
			resumed <- resumeProcess(leaderPID)
		}()
	} else if err := t.members.kill(leader); err != nil {
		watch.finish()
		rss.finish()
		return nil, fmt.Errorf("kill the leader %s: %w", addrs[leader], err)
	}

	waitErr := waitStormBack(ctx, sessions, addrs[leader], o.sessionTimeout+stormStopExtra+stormBackWait)
	if stop {
		if err := <-resumed; err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("SIGCONT: %v", err))
		}
		time.Sleep(stormResumeSettle)
	}
	back := countStorm(stormStates(sessions), false)
	res.LastBackMs = float64(back.LastBack) / float64(time.Millisecond)
	if waitErr != nil {
		res.Notes = append(res.Notes, waitErr.Error())
	}

	// Every session that is back: its ephemeral still there, and its
	// session id unchanged.
	if err := pool.report(ctx); err != nil {
		return nil, err
	}
	var wantEph []string
	for i, s := range sessions {
		if s.sid != s.id {
			res.IDChanged++
		}
		if s.tally.state().connected {
			wantEph = append(wantEph, "e-"+strconv.Itoa(i))
		}
	}
	children, _, err := retryZK(ctx, func() ([]string, *zk.Stat, error) { return checker.Children(stormRoot) })
	if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("list %s: %v", stormRoot, err))
		res.EphemeralsMissing = len(wantEph)
	} else {
		res.EphemeralsMissing = missingEphemerals(children, wantEph)
	}

	// Change every watched node once; every watch must fire once.
	for _, s := range sessions {
		s.tally.expectChanges()
	}
	if err := parallel(o.n, 64, func(i int) error {
		_, _, err := retryZK(ctx, func() (*zk.Stat, bool, error) {
			st, err := checker.Set(stormPath("w", i), []byte("x"), -1)
			return st, false, err
		})
		return err
	}); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("changing the watched nodes: %v", err))
	}
	waitWatches(ctx, sessions)
	end := time.Now()

	res.stormCounts = countStorm(stormStates(sessions), true)
	res.LastBackMs = float64(res.LastBack) / float64(time.Millisecond)
	if res.LastBack > back.LastBack {
		res.Notes = append(res.Notes, fmt.Sprintf("sessions reconnected again after the wait ended: last back %.0f ms at the wait's end", float64(back.LastBack)/float64(time.Millisecond)))
	}
	res.SpanSeconds = end.Sub(t0).Seconds()
	res.CPUSeconds = cpuSince(cpuBefore).Seconds()
	res.RSSBefore, res.PeakRSS = rss.finish()
	changes := watch.finish()
	res.Elections = changes.Elections
	res.SecondElections = max(0, changes.Elections-1)
	if changes.Elections == 0 {
		res.Notes = append(res.Notes, "no election seen (epoch increase) by srvr polling")
	}
	if i, err := findLeader(ctx, addrs, leaderFindWait); err == nil {
		res.NewLeader = addrs[i]
	}

	if !stop {
		if err := t.members.restart(leader); err != nil {
			return nil, fmt.Errorf("restart %s: %w", addrs[leader], err)
		}
	}
	if err := waitAllServing(ctx, addrs, 2*time.Minute); err != nil {
		return nil, err
	}
	return res, nil
}

// waitStormBack waits until every session that was on the failed server
// has lost its connection and got its session back, and every session
// holds its session, for stormStable; or until wait has passed.
func waitStormBack(ctx context.Context, sessions []*stormSession, failed string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	var stableSince time.Time
	for {
		done := true
		for _, s := range sessions {
			st := s.tally.state()
			if !st.connected || (s.on == failed && st.disconnects == 0) {
				done = false
				break
			}
		}
		switch {
		case !done:
			stableSince = time.Time{}
		case stableSince.IsZero():
			stableSince = time.Now()
		case time.Since(stableSince) >= stormStable:
			return nil
		}
		if time.Now().After(deadline) {
			c := countStorm(stormStates(sessions), false)
			return fmt.Errorf("not every session back within %v: %d without a session", wait, c.NotBack)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(stormPollEvery):
		}
	}
}

// waitWatches waits until every watch has fired (or stormWatchWait), then
// stormDupGrace more for duplicates.
func waitWatches(ctx context.Context, sessions []*stormSession) {
	deadline := time.Now().Add(stormWatchWait)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if countStorm(stormStates(sessions), true).Missing == 0 {
			break
		}
		time.Sleep(stormPollEvery)
	}
	time.Sleep(stormDupGrace)
}

func stormStates(sessions []*stormSession) []stormState {
	states := make([]stormState, len(sessions))
	for i, s := range sessions {
		states[i] = s.tally.state()
	}
	return states
}

// retryZK retries a request that failed because the connection was lost
// (the checker session may itself be moving), for up to a minute.
func retryZK[T any, U any](ctx context.Context, f func() (T, U, error)) (T, U, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		a, b, err := f()
		if err == nil || !(errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer)) || time.Now().After(deadline) || ctx.Err() != nil {
			return a, b, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// closeStorm removes the watched nodes of n sessions and the root (the
// ephemerals go with their sessions, closed before).
func closeStorm(c *zk.Conn, n int) {
	parallel(n, 64, func(i int) error {
		if err := c.Delete(stormPath("w", i), -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return err
		}
		return nil
	})
	if children, _, err := c.Children(stormRoot); err == nil {
		for _, ch := range children {
			c.Delete(stormRoot+"/"+ch, -1)
		}
	}
	c.Delete(stormRoot, -1)
}

// serverPIDs returns the process listening on each address's port (0
// where none is found).
func serverPIDs(addrs []string) []int {
	pids := make([]int, len(addrs))
	for i, a := range addrs {
		_, portStr, err := net.SplitHostPort(a)
		if err != nil {
			continue
		}
		port, err := strconv.Atoi(portStr)
		if err != nil {
			continue
		}
		if pid, err := listeningPID(port); err == nil {
			pids[i] = pid
		}
	}
	return pids
}

// perPIDTimes reads each process's CPU times; a missing one is absent.
func perPIDTimes(pids []int) map[int]cpuTimes {
	m := map[int]cpuTimes{}
	for _, p := range pids {
		if p == 0 {
			continue
		}
		if c, err := readProcessCPU(p); err == nil {
			m[p] = c
		}
	}
	return m
}

// cpuSince sums the CPU the processes of before used since; a process
// that has gone (the killed leader) adds nothing.
func cpuSince(before map[int]cpuTimes) time.Duration {
	var d time.Duration
	for p, b := range before {
		if c, err := readProcessCPU(p); err == nil {
			d += c.sub(b).total()
		}
	}
	return d
}

// rssPeak samples the sum of the processes' RSS.
type rssPeak struct {
	stop        chan struct{}
	done        chan struct{}
	first, peak int64
}

func startRSSPeak(pids []int) *rssPeak {
	r := &rssPeak{stop: make(chan struct{}), done: make(chan struct{})}
	sample := func() int64 {
		var sum int64
		for _, p := range pids {
			if p == 0 {
				continue
			}
			if v, err := readRSS(p); err == nil {
				sum += v
			}
		}
		return sum
	}
	r.first = sample()
	r.peak = r.first
	go func() {
		defer close(r.done)
		tick := time.NewTicker(stormRSSEvery)
		defer tick.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-tick.C:
				r.peak = max(r.peak, sample())
			}
		}
	}()
	return r
}

// finish stops the sampling and returns the first sample and the peak.
func (r *rssPeak) finish() (first, peak int64) {
	close(r.stop)
	<-r.done
	return r.first, r.peak
}

// waitAllServing waits until every server answers srvr with a mode and
// one of them leads.
func waitAllServing(ctx context.Context, addrs []string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		ok, leaders := true, 0
		for _, a := range addrs {
			m, err := realzk.Mode(a, time.Second)
			if err != nil {
				ok = false
				break
			}
			if m == "leader" {
				leaders++
			}
		}
		if ok && leaders == 1 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the ensemble %v did not serve again within %v", addrs, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
