package integration

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// The linearizability check: clients create, read (after sync), set and
// delete a few znodes with versions while the leader is killed and
// restarted; porcupine checks the history against a model where each znode
// is a versioned register. A write whose connection broke has an unknown
// outcome: the model lets it take effect or not.

type linInput struct {
	op      string // create, get, set, delete
	key     string
	value   string
	version int32 // expected version for set/delete (-1 = any)
}

type linOutput struct {
	code    string // ok, nonode, exists, badversion, unknown
	value   string // get
	version int32  // get: current version; set: new version
}

type register struct {
	exists  bool
	value   string
	version int32
}

var linModel = porcupine.NondeterministicModel{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		var keys []string
		for _, op := range h {
			k := op.Input.(linInput).key
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], op)
		}
		out := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			out = append(out, byKey[k])
		}
		return out
	},
	Init: func() []interface{} { return []interface{}{register{}} },
	Step: func(s, in, out interface{}) []interface{} {
		return linStep(s.(register), in.(linInput), out.(linOutput))
	},
	DescribeOperation: func(in, out interface{}) string {
		i, o := in.(linInput), out.(linOutput)
		return fmt.Sprintf("%s(%s,%q,v%d) -> %s %q v%d", i.op, i.key, i.value, i.version, o.code, o.value, o.version)
	},
}

// linStep returns the states the register can be in after the operation,
// or none if the operation's result is impossible from s.
func linStep(s register, in linInput, out linOutput) []interface{} {
	next, code := applyOp(s, in)
	switch {
	case out.code == "unknown":
		return []interface{}{s, next} // it may or may not have happened
	case out.code != code:
		return nil
	case in.op == "get" && code == "ok" && (out.value != s.value || out.version != s.version):
		return nil
	case in.op == "set" && code == "ok" && out.version != next.version:
		return nil
	}
	return []interface{}{next}
}

// applyOp is ZooKeeper's semantics for one znode.
func applyOp(s register, in linInput) (register, string) {
	versionOK := in.version == -1 || in.version == s.version
	switch in.op {
	case "create":
		if s.exists {
			return s, "exists"
		}
		return register{exists: true, value: in.value}, "ok"
	case "get":
		if !s.exists {
			return s, "nonode"
		}
		return s, "ok"
	case "set":
		if !s.exists {
			return s, "nonode"
		}
		if !versionOK {
			return s, "badversion"
		}
		return register{exists: true, value: in.value, version: s.version + 1}, "ok"
	default: // delete
		if !s.exists {
			return s, "nonode"
		}
		if !versionOK {
			return s, "badversion"
		}
		return register{}, "ok"
	}
}

// history records operations from many goroutines.
type history struct {
	mu    sync.Mutex
	start time.Time
	ops   []porcupine.Operation
}

func (h *history) now() int64 { return int64(time.Since(h.start)) }

func (h *history) add(client int, in linInput, call int64, out linOutput) {
	ret := h.now()
	if out.code == "unknown" {
		ret = 1 << 62 // it may take effect at any later time
	}
	h.mu.Lock()
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret})
	h.mu.Unlock()
}

// completed counts the operations with a known outcome so far.
func (h *history) completed() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, op := range h.ops {
		if op.Output.(linOutput).code != "unknown" {
			n++
		}
	}
	return n
}

func codeOf(err error) (string, bool) {
	switch {
	case err == nil:
		return "ok", true
	case errors.Is(err, zk.ErrNoNode):
		return "nonode", true
	case errors.Is(err, zk.ErrNodeExists):
		return "exists", true
	case errors.Is(err, zk.ErrBadVersion):
		return "badversion", true
	}
	return "unknown", false
}

// linStepOn issues one random operation on in.key (create, sync+get, set
// or delete, with in.version where one is known) and fills in in.op and
// the outcome. ok is false for a read that got no definite answer: it did
// not happen and is not recorded.
func linStepOn(c *zk.Conn, rng *rand.Rand, in *linInput, known map[string]int32) (out linOutput, ok bool) {
	key := in.key
	switch r := rng.Intn(10); {
	case r < 2:
		in.op = "create"
		_, err := c.Create(key, []byte(in.value), 0, openACL)
		out.code, _ = codeOf(err)
	case r < 5:
		in.op, in.value, in.version = "get", "", 0
		st, ok := linRead(c, key, &out)
		if !ok {
			return out, false
		}
		if out.code == "ok" {
			known[key] = st.Version
		}
	case r < 8:
		in.op = "set"
		st, err := c.Set(key, []byte(in.value), in.version)
		out.code, _ = codeOf(err)
		if err == nil {
			out.version = st.Version
			known[key] = st.Version
		}
	default:
		in.op = "delete"
		out.code, _ = codeOf(c.Delete(key, in.version))
	}
	return out, true
}

// linClient issues random operations until stop is closed.
func linClient(id int, c *zk.Conn, keys []string, h *history, stop <-chan struct{}, count *int) {
	rng := rand.New(rand.NewSource(int64(id)))
	known := map[string]int32{}
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		key := keys[rng.Intn(len(keys))]
		in := linInput{key: key, value: fmt.Sprintf("c%d-%d", id, n), version: -1}
		if v, ok := known[key]; ok && rng.Intn(3) > 0 {
			in.version = v
		}
		call := h.now()
		out, ok := linStepOn(c, rng, &in, known)
		if !ok {
			continue // a read that did not happen is not recorded
		}
		h.add(id, in, call, out)
		*count++
		if out.code == "unknown" {
			// Disconnected: go-zookeeper fails every request at once
			// until it has its session back, and each failed write is one
			// more operation of unknown outcome for the checker to place
			// (hundreds of them made its search time out).
			waitSession(c, stop)
		}
	}
}

// waitSession waits until c has its session again or stop is closed.
func waitSession(c *zk.Conn, stop <-chan struct{}) {
	for c.State() != zk.StateHasSession {
		select {
		case <-stop:
			return
		case <-time.After(5 * time.Millisecond): // poll interval of the condition
		}
	}
}

func TestLinearizableUnderLeaderKills(t *testing.T) {
	duration := 4 * time.Second
	if d, err := time.ParseDuration(os.Getenv("ZKRAFT_SOAK")); err == nil {
		duration = d
	}
	c := StartCluster(t, 3)
	keys := []string{"/lin-a", "/lin-b", "/lin-c"}
	h := &history{start: time.Now()}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	counts := make([]int, 4)
	for i := range counts {
		cl, _ := c.Connect(t)
		wg.Add(1)
		go func(i int) { defer wg.Done(); linClient(i, cl, keys, h, stop, &counts[i]) }(i)
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
	for enough := time.Now().Add(30 * time.Second); h.completed() <= minLinOps && time.Now().Before(enough); {
		time.Sleep(10 * time.Millisecond) // poll interval of the condition above
	}
	close(stop)
	wg.Wait()

	total, unknown := len(h.ops), 0
	for _, op := range h.ops {
		if op.Output.(linOutput).code == "unknown" {
			unknown++
		}
	}
	res, info := porcupine.CheckOperationsVerbose(linModel.ToModel(), h.ops, time.Minute)
	t.Logf("checked %d operations (%d with unknown outcome) from %d clients across %d leader kills: %s",
		total, unknown, len(counts), kills, res)
	if res == porcupine.Illegal {
		f, err := os.CreateTemp("", "zkraft-linearizability-*.html")
		if err == nil {
			porcupine.Visualize(linModel.ToModel(), info, f)
			f.Close()
			t.Logf("visualization: %s", f.Name())
		}
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
	op := func(client int, in linInput, call int64, out linOutput, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
	}
	h := []porcupine.Operation{
		op(0, linInput{op: "create", key: "/k", value: "v0", version: -1}, 0, linOutput{code: "ok"}, 1),
		op(0, linInput{op: "set", key: "/k", value: "v1", version: 0}, 2, linOutput{code: "ok", version: 1}, 3),
		op(1, linInput{op: "get", key: "/k"}, 4, linOutput{code: "ok", value: "v0", version: 0}, 5),
	}
	require.Equal(t, porcupine.Illegal, porcupine.CheckOperationsTimeout(linModel.ToModel(), h, time.Second))
	h[2].Output = linOutput{code: "ok", value: "v1", version: 1}
	require.Equal(t, porcupine.Ok, porcupine.CheckOperationsTimeout(linModel.ToModel(), h, time.Second))
	// An unknown outcome may have happened or not.
	h[1].Output, h[1].Return = linOutput{code: "unknown"}, 1<<62
	require.Equal(t, porcupine.Ok, porcupine.CheckOperationsTimeout(linModel.ToModel(), h, time.Second))
	h[2].Output = linOutput{code: "ok", value: "v0", version: 0}
	require.Equal(t, porcupine.Ok, porcupine.CheckOperationsTimeout(linModel.ToModel(), h, time.Second))
}
