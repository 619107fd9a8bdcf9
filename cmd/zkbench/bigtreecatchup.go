package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// srvrZxid returns the Mode and Zxid lines of a server's srvr.
func srvrZxid(addr string) (mode string, zxid int64, err error) {
	out, err := realzk.FourLetterWord(addr, "srvr", time.Second)
	if err != nil {
		return "", 0, err
	}
	mode, zxid, ok := parseSrvr(out)
	if !ok {
		return "", 0, fmt.Errorf("srvr of %s without Mode and Zxid: %q", addr, out)
	}
	return mode, zxid, nil
}

// wipeData removes everything in a data directory but myid: the server
// starts again as a new member that knows nothing of the tree.
func wipeData(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == "myid" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// catchup has one session on the leader set znodes, one at a time, for
// -bigtree-window; then kills a follower, wipes its data and starts it
// again, and keeps writing until the follower's srvr shows it following
// with the leader's zxid of the moment it was restarted. The writes
// before the kill are compared with those during the catch-up.
func (b *bigtree) catchup(ctx context.Context) error {
	addrs := b.t.addrs
	leader := leaderIndex(askModes(addrs, srvrMode))
	if leader < 0 {
		return fmt.Errorf("no one leader among %v", addrs)
	}
	f := (leader + 1) % len(addrs)
	dir, err := dataDirOf(addrs[f])
	if err != nil {
		return err
	}
	s, err := connect(ctx, []string{addrs[leader]}, b.o.sessionTimeout)
	if err != nil {
		return err
	}
	defer s.close()
	w := startWriters([]*session{s}, b.o)
	stopped := false
	defer func() {
		if !stopped {
			w.finish()
		}
	}()
	if err := sleepCtx(ctx, b.o.bigtree.window); err != nil {
		return err
	}
	killed := w.now()
	if err := b.t.members.kill(f); err != nil {
		return fmt.Errorf("kill %s: %w", addrs[f], err)
	}
	if err := wipeData(dir); err != nil {
		return err
	}
	_, target, err := srvrZxid(addrs[leader])
	if err != nil {
		return fmt.Errorf("leader %s: %w", addrs[leader], err)
	}
	restarted := w.now()
	if err := b.t.members.restart(f); err != nil {
		return fmt.Errorf("restart %s: %w", addrs[f], err)
	}
	caught, err := pollUntil(ctx, b.o.bigtree.catchWait, 50*time.Millisecond, func() bool {
		mode, zxid, err := srvrZxid(addrs[f])
		return err == nil && mode == "follower" && zxid >= target
	})
	end := w.now()
	writes, errs := w.finish()
	stopped = true
	if err != nil {
		return err
	}
	if !caught {
		return fmt.Errorf("follower %s did not catch up within %v", addrs[f], b.o.bigtree.catchWait)
	}
	b.catchupFigures(writes, errs, killed, restarted, end)
	return nil
}

func (b *bigtree) catchupFigures(writes []opSpan, errs int, killed, restarted, end int64) {
	before := statsOf(writes, func(s opSpan) bool { return s.end < killed })
	during := statsOf(writes, func(s opSpan) bool { return s.start >= restarted && s.start <= end })
	r := b.res
	r.addMs("catchup_ms", "follower catch-up (restart to zxid)", time.Duration(end-restarted))
	r.addMs("catchup_before_p99_ms", "leader write p99 before", before.p99)
	r.addMs("catchup_during_p99_ms", "leader write p99 during catch-up", during.p99)
	r.addMs("catchup_during_max_ms", "leader write max during catch-up", during.max)
	r.add("catchup_during_writes", "writes during catch-up", unitCount, float64(during.n))
	verdict := "met"
	if during.p99 > 2*before.p99 {
		verdict = "NOT met"
	}
	r.Notes = append(r.Notes, fmt.Sprintf("catch-up goal (leader p99 during %v < 2x before %v): %s; %d writes failed",
		during.p99.Round(time.Microsecond), before.p99.Round(time.Microsecond), verdict, errs))
	b.progress("catch-up: %v; leader write p99 %v before, %v during",
		time.Duration(end-restarted).Round(time.Millisecond), before.p99.Round(time.Microsecond), during.p99.Round(time.Microsecond))
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
