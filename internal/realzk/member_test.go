package realzk

import (
	"testing"
	"time"
)

// TestEnsembleKillRestart kills an ensemble's leader with SIGKILL and
// restarts it: the others elect a leader, and the restarted member serves
// again on its old address, as a follower or the leader.
func TestEnsembleKillRestart(t *testing.T) {
	if ok, reason := Available(); !ok {
		t.Skip(reason)
	}
	e, err := StartEnsemble("", 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	if err := e.Kill(3); err == nil {
		t.Error("Kill(3) of a three-member ensemble: no error")
	}
	leader := -1
	for i, a := range e.Addrs() {
		if m, err := Mode(a, time.Second); err == nil && m == "leader" {
			leader = i
		}
	}
	if leader < 0 {
		t.Fatal("no leader")
	}
	if err := e.Restart(leader, Options{}); err == nil {
		t.Error("Restart of a running member: no error")
	}
	if err := e.Kill(leader); err != nil {
		t.Fatal(err)
	}
	if e.members[leader].exited() == nil {
		t.Fatal("the killed member's JVM is still running")
	}
	if err := e.Restart(leader, Options{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(EnsembleStartTimeout)
	if err := poll(deadline, e.anyExited, e.ready); err != nil {
		t.Fatalf("after the restart: %v\n%s", err, e.members[leader].logTail())
	}
}
