package main

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

const restartPoll = 100 * time.Millisecond

// restart kills every server (SIGKILL, as a power cut would: neither
// server gets to snapshot on the way down), starts them all again and
// times until each one serves: srvr says leader or follower and a fresh
// session on it alone reads the tree's last znode. Then it reads the
// RSS of the restarted processes.
func (b *bigtree) restart(ctx context.Context) error {
	addrs := b.t.addrs
	for i := range addrs {
		if err := b.t.members.kill(i); err != nil {
			return fmt.Errorf("kill %s: %w", addrs[i], err)
		}
	}
	start := time.Now()
	for i := range addrs {
		if err := b.t.members.restart(i); err != nil {
			return fmt.Errorf("restart %s: %w", addrs[i], err)
		}
	}
	// listening is when the client port first took a connection; ready
	// is when the server served the read.
	listening := make([]time.Duration, len(addrs))
	ready := make([]time.Duration, len(addrs))
	ok, err := pollUntil(ctx, b.o.bigtree.catchWait, restartPoll, func() bool {
		all := true
		for i, a := range addrs {
			if ready[i] != 0 {
				continue
			}
			up, ok := serves(ctx, a, b.o)
			if up && listening[i] == 0 {
				listening[i] = time.Since(start)
			}
			if ok {
				ready[i] = time.Since(start)
			} else {
				all = false
			}
		}
		return all
	})
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("not every server served within %v of the restart (ready after %v)", b.o.bigtree.catchWait, ready)
	}
	first, last := slices.Min(ready), slices.Max(ready)
	b.res.addMs("restart_listening_ms", "restart: every client port open", slices.Max(listening))
	b.res.addMs("restart_first_ms", "restart: first server serving", first)
	b.res.addMs("restart_all_ms", "restart: every server serving", last)
	b.progress("restart: first server serving after %v, all after %v", first.Round(time.Millisecond), last.Round(time.Millisecond))
	b.addStartupFigures(ctx)
	mem := findMemory(addrs)
	s := mem.sample(ctx, false)
	b.res.addBytes("rss_restarted_bytes", "RSS after restart", s.rss, s.rssOK)
	return nil
}

// startupMetrics are the mntr summaries (ZooKeeper's names, which zkraft
// keeps) that split a restart: the snapshot read, then the log replayed.
// Times are in ms, as a duration figure's value is.
var startupMetrics = []struct {
	metric, key, name string
	u                 unit
}{
	{"zk_max_startup_snap_load_time", "restart_snap_load_ms", "restart: snapshot load (slowest server)", unitDuration},
	{"zk_max_startup_txns_load_time", "restart_txns_load_ms", "restart: log replay (slowest server)", unitDuration},
	{"zk_max_startup_txns_loaded", "restart_txns_loaded", "restart: transactions replayed (most)", unitCount},
}

// addStartupFigures reads every server's mntr after the restart and adds
// the largest of each startup summary, so the restart's time splits into
// reading the snapshot and replaying the log on both servers alike.
func (b *bigtree) addStartupFigures(ctx context.Context) {
	most := make([]float64, len(startupMetrics))
	found := make([]bool, len(startupMetrics))
	for _, a := range b.t.addrs {
		var out strings.Builder
		if _, err := fourLetter(ctx, a, "mntr", &out); err != nil {
			b.res.Notes = append(b.res.Notes, "mntr after the restart: "+err.Error())
			continue
		}
		values := mntrValues(out.String())
		for i, m := range startupMetrics {
			if v, ok := values[m.metric]; ok {
				most[i], found[i] = max(most[i], v), true
			}
		}
	}
	for i, m := range startupMetrics {
		if !found[i] {
			b.res.Notes = append(b.res.Notes, "mntr has no "+m.metric)
			continue
		}
		b.res.add(m.key, m.name, m.u, most[i])
	}
}

// mntrValues reads the numeric values of an mntr answer by key.
func mntrValues(mntr string) map[string]float64 {
	out := make(map[string]float64)
	for _, line := range strings.Split(mntr, "\n") {
		if k, v, ok := strings.Cut(line, "\t"); ok {
			if n, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				out[k] = n
			}
		}
	}
	return out
}

// serves reports whether the server at addr takes connections (up), and
// whether it leads or follows and reads the tree (ok).
func serves(ctx context.Context, addr string, o *options) (up, ok bool) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false, false
	}
	c.Close()
	mode, _, err := srvrZxid(addr)
	if err != nil || (mode != "leader" && mode != "follower") {
		return true, false
	}
	return true, readTree(ctx, addr, o) == nil
}
