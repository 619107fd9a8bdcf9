package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A run may hold several workloads: -op, -sessions and -role take comma
// lists, and zkbench runs every combination (for each op, each number of
// sessions, each role) on the same targets, started once. Starting a
// five-JVM ZooKeeper ensemble takes tens of seconds on a loaded machine,
// so an ensemble comparison of four ops and three session counts starts
// its targets once, not twelve times.

// workloadSpec is one workload of a run.
type workloadSpec struct {
	opName   string
	op       opKind
	sessions int
	role     string
}

func (w workloadSpec) String() string {
	return fmt.Sprintf("-op %s -sessions %d -role %s", w.opName, w.sessions, w.role)
}

// parsePlan reads the -op, -sessions and -role lists into o.plan, and sets
// o.op, o.opName, o.sessions and o.role to its first workload (which is
// the only one for the scale ops and start, as they cannot be combined).
func (o *options) parsePlan(sessions string) error {
	ops := splitList(o.opName)
	counts := splitList(sessions)
	roleList := splitList(o.role)
	if len(ops) == 0 || len(counts) == 0 || len(roleList) == 0 {
		return errors.New("-op, -sessions and -role must not be empty")
	}
	var plan []workloadSpec
	for _, name := range ops {
		op, err := parseOp(name)
		if err != nil {
			return err
		}
		for _, c := range counts {
			n, err := strconv.Atoi(c)
			if err != nil || n < 1 {
				return fmt.Errorf("-sessions %s must be at least 1", c)
			}
			for _, role := range roleList {
				if err := checkRole(role); err != nil {
					return err
				}
				plan = append(plan, workloadSpec{opName: name, op: op, sessions: n, role: role})
			}
		}
	}
	for _, w := range plan {
		if len(plan) > 1 && (w.op.scale() || w.op == opStart) {
			return fmt.Errorf("-op %s runs alone: give one -op, one -sessions and one -role with it", w.op)
		}
	}
	o.plan = plan
	o.use(plan[0])
	return nil
}

// use makes w the workload o describes.
func (o *options) use(w workloadSpec) {
	o.opName, o.op, o.sessions, o.role = w.opName, w.op, w.sessions, w.role
}

// splitList splits a comma list, dropping spaces around the items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
