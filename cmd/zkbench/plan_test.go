package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestPlanFromLists(t *testing.T) {
	var stderr bytes.Buffer
	o, err := parseFlags([]string{"-op", "set, get", "-sessions", "1,8", "-role", "leader,follower"}, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var got []string
	for _, w := range o.plan {
		got = append(got, w.String())
	}
	want := []string{
		"-op set -sessions 1 -role leader", "-op set -sessions 1 -role follower",
		"-op set -sessions 8 -role leader", "-op set -sessions 8 -role follower",
		"-op get -sessions 1 -role leader", "-op get -sessions 1 -role follower",
		"-op get -sessions 8 -role leader", "-op get -sessions 8 -role follower",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if o.op != opSet || o.sessions != 1 || o.role != "leader" {
		t.Errorf("current workload %v %d %s, want the first", o.op, o.sessions, o.role)
	}
	o.use(o.plan[7])
	if o.op != opGet || o.opName != "get" || o.sessions != 8 || o.role != "follower" {
		t.Errorf("use(last): %v %d %s", o.op, o.sessions, o.role)
	}
}

func TestPlanErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-sessions", "8,0"}, "-sessions 0 must be at least 1"},
		{[]string{"-sessions", "8,x"}, "-sessions x must be at least 1"},
		{[]string{"-sessions", ","}, "must not be empty"},
		{[]string{"-op", "set,gte"}, "gte"},
		{[]string{"-role", "any,boss"}, `-role "boss"`},
		{[]string{"-op", "fill,set"}, "-op fill runs alone"},
		{[]string{"-op", "start", "-sessions", "1,2", "-servers", "zkserver"}, "-op start runs alone"},
	} {
		var stderr bytes.Buffer
		if _, err := parseFlags(c.args, &stderr); err == nil || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: %v, stderr %q; want %q", c.args, err, stderr.String(), c.want)
		}
	}
}
