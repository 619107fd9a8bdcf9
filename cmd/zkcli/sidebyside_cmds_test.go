package main

import "testing"

// commandsSequence covers the commands added after the first side-by-side
// sequence: quotas, whoami, and removewatches on a session without
// watches (zkcli's one-shot sessions have none, unlike zkCli.sh's batch
// session, so addWatch is compared in TestOneShotCommandsSideBySide).
func commandsSequence() []step {
	lines := []string{
		"create $R",
		"create $R/q root",
		"create $R/q/pre 12345",
		"create $R/q/pre/deep d",
		"setquota -n 2 $R/q",
		"listquota $R/q",
		"create $R/q/a data",
		"listquota $R/q",
		"setquota -b 100 $R/q",
		"listquota $R/q",
		"setquota -N 10 $R/q",
		"setquota -B 3 $R/q",
		"listquota $R/q",
		"setquota -n 2 $R/q/pre",
		"setquota -n 2 $R",
		"setquota -n 2 $R/nope",
		"setquota -n 0 $R/q",
		"setquota -b -1 $R/q",
		"setquota -n x $R/q",
		"setquota -n 2 -b 3 $R/q",
		"setquota $R/q",
		"setquota -n 2",
		"setquota -n 2 /zookeeper/quota/x",
		"setquota -n 2 q",
		"listquota $R/nope",
		"listquota",
		"delquota -n $R/q",
		"listquota $R/q",
		"delquota -B $R/q",
		"listquota $R/q",
		"delquota -n -b $R/q",
		"delquota $R/nope",
		"delquota $R/q",
		"listquota $R/q",
		"ls /zookeeper/quota",
		"create $R/q2 x",
		"create $R/q2/k y",
		"setquota -N 1 $R/q2/k",
		"setquota -n 1 $R/q2",
		"delquota $R/q2/k",
		"ls /zookeeper/quota",
		"whoami",
		"removewatches $R/q",
		"removewatches $R/q -c",
		"removewatches $R/q -d -l",
		"removewatches",
		"removewatches q",
		"addWatch -m nope $R/q",
		"addWatch",
	}
	var steps []step
	for _, l := range lines {
		steps = append(steps, step{line: l})
	}
	steps = append(steps, step{line: "addauth digest u:p", auth: true}, step{line: "whoami", auth: true},
		step{line: "deleteall $R", auth: true})
	return steps
}

// TestSideBySideCommands runs commandsSequence as TestSideBySide runs
// sequence: zkCli.sh against ZooKeeper 3.8, zkcli against the same server
// and against zkraft, outputs compared step by step.
func TestSideBySideCommands(t *testing.T) { compareSideBySide(t, commandsSequence()) }
