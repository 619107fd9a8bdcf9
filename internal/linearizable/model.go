package linearizable

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// Input is an operation on one znode.
type Input struct {
	Op      string // create, get, set, delete
	Key     string
	Value   string
	Version int32 // expected version for set/delete (-1 = any)
}

// Output is an operation's outcome.
type Output struct {
	Code    string // ok, nonode, exists, badversion, unknown
	Value   string // get
	Version int32  // get: current version; set: new version
}

// Register is the model's state of one znode.
type Register struct {
	Exists  bool
	Value   string
	Version int32
}

// Unknown is the Code of an operation whose outcome the client never
// learned (its connection broke, its session expired).
const Unknown = "unknown"

// Model checks histories of Input and Output operations, partitioned by
// znode.
var Model = porcupine.NondeterministicModel{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		var keys []string
		for _, op := range h {
			k := op.Input.(Input).Key
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
	Init: func() []interface{} { return []interface{}{Register{}} },
	Step: func(s, in, out interface{}) []interface{} {
		return Step(s.(Register), in.(Input), out.(Output))
	},
	DescribeOperation: func(in, out interface{}) string {
		i, o := in.(Input), out.(Output)
		return fmt.Sprintf("%s(%s,%q,v%d) -> %s %q v%d", i.Op, i.Key, i.Value, i.Version, o.Code, o.Value, o.Version)
	},
}

// Step returns the states the register can be in after the operation, or
// none if the operation's result is impossible from s.
func Step(s Register, in Input, out Output) []interface{} {
	next, code := Apply(s, in)
	switch {
	case out.Code == Unknown:
		return []interface{}{s, next} // it may or may not have happened
	case out.Code != code:
		return nil
	case in.Op == "get" && code == "ok" && (out.Value != s.Value || out.Version != s.Version):
		return nil
	case in.Op == "set" && code == "ok" && out.Version != next.Version:
		return nil
	}
	return []interface{}{next}
}

// Apply is ZooKeeper's semantics for one znode: the state after in and
// the result code.
func Apply(s Register, in Input) (Register, string) {
	versionOK := in.Version == -1 || in.Version == s.Version
	switch in.Op {
	case "create":
		if s.Exists {
			return s, "exists"
		}
		return Register{Exists: true, Value: in.Value}, "ok"
	case "get":
		if !s.Exists {
			return s, "nonode"
		}
		return s, "ok"
	case "set":
		if !s.Exists {
			return s, "nonode"
		}
		if !versionOK {
			return s, "badversion"
		}
		return Register{Exists: true, Value: in.Value, Version: s.Version + 1}, "ok"
	default: // delete
		if !s.Exists {
			return s, "nonode"
		}
		if !versionOK {
			return s, "badversion"
		}
		return Register{}, "ok"
	}
}
