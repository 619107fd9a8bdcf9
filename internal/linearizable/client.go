package linearizable

import (
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/go-zookeeper/zk"
)

var openACL = zk.WorldACL(zk.PermAll)

// CodeOf maps a ZooKeeper error to an Output code; definite is false when
// the error leaves the outcome unknown (a broken connection, an expired
// session, a timeout).
func CodeOf(err error) (code string, definite bool) {
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
	return Unknown, false
}

// Read is sync then get, filling in out; ok is false when either failed
// without a definite answer (the read did not happen and is not to be
// recorded).
func Read(c *zk.Conn, key string, out *Output) (*zk.Stat, bool) {
	if _, err := c.Sync(key); err != nil {
		return nil, false
	}
	data, st, err := c.Get(key)
	code, definite := CodeOf(err)
	if !definite {
		return nil, false
	}
	out.Code = code
	if err == nil {
		out.Value, out.Version = string(data), st.Version
	}
	return st, true
}

// StepOn issues one random operation on in.Key (create, sync+get, set or
// delete, with in.Version where one is known) and fills in in.Op and the
// outcome; known holds the versions this client last saw, by key. ok is
// false for a read that got no definite answer: it did not happen and is
// not recorded.
func StepOn(c *zk.Conn, rng *rand.Rand, in *Input, known map[string]int32) (out Output, ok bool) {
	key := in.Key
	switch r := rng.Intn(10); {
	case r < 2:
		in.Op = "create"
		_, err := c.Create(key, []byte(in.Value), 0, openACL)
		out.Code, _ = CodeOf(err)
	case r < 5:
		in.Op, in.Value, in.Version = "get", "", 0
		st, ok := Read(c, key, &out)
		if !ok {
			return out, false
		}
		if out.Code == "ok" {
			known[key] = st.Version
		}
	case r < 8:
		in.Op = "set"
		st, err := c.Set(key, []byte(in.Value), in.Version)
		out.Code, _ = CodeOf(err)
		if err == nil {
			out.Version = st.Version
			known[key] = st.Version
		}
	default:
		in.Op = "delete"
		out.Code, _ = CodeOf(c.Delete(key, in.Version))
	}
	return out, true
}

// Client issues random operations on keys through c, recording them in h
// as client id, until stop is closed; count counts them.
func Client(id int, c *zk.Conn, keys []string, h *History, stop <-chan struct{}, count *int) {
	rng := rand.New(rand.NewSource(int64(id)))
	known := map[string]int32{}
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		key := keys[rng.Intn(len(keys))]
		in := Input{Key: key, Value: fmt.Sprintf("c%d-%d", id, n), Version: -1}
		if v, ok := known[key]; ok && rng.Intn(3) > 0 {
			in.Version = v
		}
		call := h.Now()
		out, ok := StepOn(c, rng, &in, known)
		if !ok {
			continue // a read that did not happen is not recorded
		}
		h.Add(id, in, call, out)
		*count++
		if out.Code == Unknown {
			// Disconnected: go-zookeeper fails every request at once
			// until it has its session back, and each failed write is one
			// more operation of unknown outcome for the checker to place
			// (hundreds of them made its search time out).
			WaitSession(c, stop)
		}
	}
}

// WaitSession waits until c has its session again or stop is closed.
func WaitSession(c *zk.Conn, stop <-chan struct{}) {
	for c.State() != zk.StateHasSession {
		select {
		case <-stop:
			return
		case <-time.After(5 * time.Millisecond): // poll interval of the condition
		}
	}
}
