package main

import "strings"

// step is one command of the side-by-side sequence; $R stands for the
// test's root path.
type step struct {
	line string
	// auth: the digest credentials u:p were added before this step (by
	// the addauth step in zkCli.sh's session; zkcli gets -auth).
	auth bool
}

// sequence is run step by step by zkCli.sh (one session, commands on
// standard input) and by zkcli (one invocation per step). It does not look
// at ephemeral nodes after creating one, since zkCli.sh's session keeps
// them and zkcli's one-shot sessions do not.
func sequence() []step {
	lines := []string{
		"create $R",
		"create $R/a hello",
		"create $R/a x",
		"create $R/x/y z",
		"create $R/a/b",
		"create $R/a/b/c cc",
		"create -s $R/s d",
		"create -s $R/s d",
		"create -c $R/c",
		"create -t 100000 $R/t d",
		"create -c -e $R/bad",
		"create -t 0 $R/tt",
		"create -t x $R/tt",
		"create $R/acl1 d ip:127.0.0.1:cdrwa",
		"create $R/acl3 d digest:u:x:rwz",
		"create $R/acl4 d bad",
		"create $R/acl2 d auth::cdrwa",
		"create $R/sec secret digest:" + digestID("u", "p") + ":cdrwa",
		"ls $R",
		"ls -s $R",
		"ls $R/nope",
		"ls -R $R/a",
		"get $R/a",
		"get -s $R/a",
		"get $R/a/b",
		"get $R/nope",
		"get $R/sec",
		"stat $R/a",
		"stat $R/nope",
		"set $R/a v2",
		"set -s $R/a v3",
		"set -v 0 $R/a v4",
		"set $R/nope z",
		"getAcl $R/a",
		"getAcl -s $R/acl1",
		"getAcl $R/acl3",
		"getAcl $R/nope",
		"setAcl $R/c world:anyone:r",
		"getAcl $R/c",
		"setAcl -s $R/a/b world:anyone:cdrwa",
		"setAcl -v 7 $R/a world:anyone:cdrwa",
		"setAcl -R $R/a world:anyone:cdrw",
		"getAcl $R/a/b/c",
		"setAcl $R/a bad",
		"setAcl $R/acl3 world:anyone:r",
		"delete $R/a",
		"delete -v 9 $R/a/b/c",
		"delete $R/nope",
		"delete $R/a/b/c",
		"sync $R",
		"getAllChildrenNumber $R",
		"getAllChildrenNumber $R/nope",
		"getEphemerals $R",
		"getEphemerals",
		"config",
		"ls",
		"get x",
		"get $R/",
		"ls -x $R",
		"ls -R $R",
		"set $R/a",
		"create $R/ro d world:anyone:r",
		"setAcl -R $R/ro world:anyone:cdrwa",
		"create $R/nd d world:anyone:cr",
		"create $R/nd/kid",
		// "deleteall $R/nd" (refused: no DELETE on /nd) is left out: in
		// one CI run zkCli.sh's batch session printed nothing for it where
		// every other run printed "Failed to delete some node(s) in the
		// subtree!", not yet explained (see the issue-15 closing note).
		"ls -R $R/nd",
		"create -e $R/eph e",
		"create -e -s $R/eph e",
		"deleteall $R/nope",
	}
	var steps []step
	for _, l := range lines {
		steps = append(steps, step{line: l})
	}
	// From here on the session holds u:p.
	steps = append(steps, step{line: "addauth digest u:p", auth: true})
	for _, l := range []string{"get $R/sec", "getAcl $R/sec", "deleteall $R", "deleteall $R/a", "ls $R/a"} {
		steps = append(steps, step{line: l, auth: true})
	}
	return steps
}

// expand replaces $R by root.
func (s step) expand(root string) string { return strings.ReplaceAll(s.line, "$R", root) }
