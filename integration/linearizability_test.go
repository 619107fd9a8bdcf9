package integration

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/linearizable"
)

// The linearizability check: clients create, read (after sync), set and
// delete a few znodes with versions while the leader is killed and
// restarted; porcupine checks the history against a model where each znode
// is a versioned register (package linearizable). A write whose connection
// broke has an unknown outcome: the model lets it take effect or not.

func TestLinearizableUnderLeaderKills(t *testing.T) {
	duration := 4 * time.Second
	if d, err := time.ParseDuration(os.Getenv("ZKRAFT_SOAK")); err == nil {
		duration = d
	}
	c := StartCluster(t, 3)
	keys := []string{"/lin-a", "/lin-b", "/lin-c"}
	h := linearizable.NewHistory()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	counts := make([]int, 4)
	for i := range counts {
		cl, _ := c.Connect(t)
		wg.Add(1)
		go func(i int) { defer wg.Done(); linearizable.Client(i, cl, keys, h, stop, &counts[i]) }(i)
	}
	kills := 0
	deadline := time.Now().Add(duration)
	for time.Now().Before(deadline) {
		time.Sleep(duration / 4) // let the clients work between faults
		leader := c.WaitForLeader()
		if kills%2 == 0 {
			c.Kill(leader) // a crash: the others wait out a heartbeat timeout
		} else {
			c.Stop(leader) // a clean stop: the leader hands over first
		}
		kills++
		c.WaitForLeader()
		c.Restart(leader)
	}
	// Each fault costs the clients a few ticks; on a slow machine they
	// may need longer than the faults took to complete enough operations.
	c.WaitForLeader()
	for enough := time.Now().Add(30 * time.Second); h.Completed() <= minLinOps && time.Now().Before(enough); {
		time.Sleep(10 * time.Millisecond) // poll interval of the condition above
	}
	close(stop)
	wg.Wait()

	total, unknown := h.Counts()
	res, visualization := linearizable.Check(linearizable.Model.ToModel(), h.Ops(), time.Minute)
	t.Logf("checked %d operations (%d with unknown outcome) from %d clients across %d leader kills: %s",
		total, unknown, len(counts), kills, res)
	if visualization != "" {
		t.Logf("visualization: %s", visualization)
	}
	require.Equal(t, porcupine.Ok, res, "history is not linearizable")
	require.Greater(t, total-unknown, minLinOps, "too few completed operations to mean anything")
}

// minLinOps is how many operations with a known outcome a history needs
// to mean anything.
const minLinOps = 100

// TestLinearizabilityModelRejectsStaleReads shows the checker has teeth: a
// read that returns a value overwritten before the read began is illegal.
func TestLinearizabilityModelRejectsStaleReads(t *testing.T) {
	type (
		in  = linearizable.Input
		out = linearizable.Output
	)
	op := func(client int, i in, call int64, o out, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: i, Call: call, Output: o, Return: ret}
	}
	m := linearizable.Model.ToModel()
	h := []porcupine.Operation{
		op(0, in{Op: "create", Key: "/k", Value: "v0", Version: -1}, 0, out{Code: "ok"}, 1),
		op(0, in{Op: "set", Key: "/k", Value: "v1", Version: 0}, 2, out{Code: "ok", Version: 1}, 3),
		op(1, in{Op: "get", Key: "/k"}, 4, out{Code: "ok", Value: "v0", Version: 0}, 5),
	}
	require.Equal(t, porcupine.Illegal, porcupine.CheckOperationsTimeout(m, h, time.Second))
	h[2].Output = out{Code: "ok", Value: "v1", Version: 1}
	require.Equal(t, porcupine.Ok, porcupine.CheckOperationsTimeout(m, h, time.Second))
	// An unknown outcome may have happened or not.
	h[1].Output, h[1].Return = out{Code: linearizable.Unknown}, 1<<62
	require.Equal(t, porcupine.Ok, porcupine.CheckOperationsTimeout(m, h, time.Second))
	h[2].Output = out{Code: "ok", Value: "v0", Version: 0}
	require.Equal(t, porcupine.Ok, porcupine.CheckOperationsTimeout(m, h, time.Second))
}
