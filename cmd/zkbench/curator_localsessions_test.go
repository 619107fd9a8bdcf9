package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// localSessionsOf is the zk_local_sessions figure of addr's mntr.
func localSessionsOf(t *testing.T, addr string) string {
	t.Helper()
	out, err := realzk.FourLetterWord(addr, "mntr", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "zk_local_sessions" {
			return f[1]
		}
	}
	t.Fatalf("%s: mntr has no zk_local_sessions:\n%s", addr, out)
	return ""
}

// TestCuratorLockLocalSessions runs Apache Curator's InterProcessMutex
// (one client per server of zkraft3) on an ensemble started with -cfg
// localSessionsEnabled=true (and localSessionsUpgradingEnabled=true, said
// explicitly: ZooKeeper 3.8 defaults it to false): every Curator session starts local on its
// server and is upgraded by its first lock node, an ephemeral-sequential
// create, and the lock changes hands without errors. A go-zookeeper
// session first checks that the key reached the in-process servers: it is
// local on its server (mntr).
func TestCuratorLockLocalSessions(t *testing.T) {
	if _, err := curatorClasspath(); err != nil {
		t.Skipf("Curator lock client unavailable: %v", err)
	}
	cur, err := prepareCurator()
	if err != nil {
		t.Fatal(err)
	}
	defer cur.remove()
	o := lockTestOptions(t, "-warmup", "3s", "-duration", "3s", "-cfg", "localSessionsEnabled=true",
		"-cfg", "localSessionsUpgradingEnabled=true")
	tg := startTestTarget(t, "zkraft3", o)

	before := localSessionsOf(t, tg.addrs[0])
	s, err := connect(context.Background(), tg.addrs[:1], o.sessionTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if got := localSessionsOf(t, tg.addrs[0]); got != "1" || before != "0" {
		t.Fatalf("zk_local_sessions %s before a session, %s with it; want 0 and 1 (-cfg localSessionsEnabled=true)", before, got)
	}
	s.close()

	res, err := lockRound(context.Background(), o, tg, cur.run)
	checkLockRound(t, o, res, err)
	if got := rootChildren(t, tg.addrs); !slices.Equal(got, []string{"zookeeper"}) {
		t.Errorf("after the run / has %q, want the lock directory removed", got)
	}
}
