package main

import (
	"reflect"
	"testing"
)

// TestCompleteWord checks completion without a terminal: command names
// for the first word, children of the parent znode for a path, nothing
// for other words.
func TestCompleteWord(t *testing.T) {
	tree := map[string][]string{
		"/":          {"zookeeper", "app", "apple", "b"},
		"/app":       {"cfg", "locks", "leader"},
		"/zookeeper": {"quota", "config"},
	}
	asked := ""
	children := func(dir string) []string { asked = dir; return tree[dir] }
	names := []string{"addauth", "close", "config", "connect", "create", "get", "getAcl", "ls"}
	for _, tc := range []struct {
		head  string
		want  []string
		n     int
		asked string
	}{
		{"c", []string{"lose ", "onfig ", "onnect ", "reate "}, 1, ""},
		{"con", []string{"fig ", "nect "}, 3, ""},
		{"  get", []string{" ", "Acl "}, 3, ""},
		{"", []string{"addauth ", "close ", "config ", "connect ", "create ", "get ", "getAcl ", "ls "}, 0, ""},
		{"ls /", []string{"app", "apple", "b", "zookeeper"}, 0, "/"},
		{"ls /ap", []string{"p", "ple"}, 2, "/"},
		{"get -s /app/l", []string{"eader", "ocks"}, 1, "/app"},
		{"get /app/", []string{"cfg", "leader", "locks"}, 0, "/app"},
		{"ls /zookeeper/qu", []string{"ota"}, 2, "/zookeeper"},
		{"ls /nope/x", nil, 1, "/nope"},
		{"get -s", nil, 0, ""},
		{"set /x da", nil, 0, ""},
	} {
		asked = ""
		got, n := completeWord(tc.head, names, children)
		if !reflect.DeepEqual(got, tc.want) || n != tc.n || asked != tc.asked {
			t.Errorf("completeWord(%q) = %q, %d (asked %q); want %q, %d (asked %q)",
				tc.head, got, n, asked, tc.want, tc.n, tc.asked)
		}
	}
}

// TestCommandNamesHaveSessionCommands checks that the session's commands
// are in the commands table, so they complete and run like the others.
func TestCommandNamesHaveSessionCommands(t *testing.T) {
	have := map[string]bool{}
	for _, n := range commandNames() {
		have[n] = true
	}
	for _, n := range []string{"history", "redo", "printwatches", "connect", "close", "quit", "ls", "get",
		"reconfig", "whoami", "setquota", "listquota", "delquota", "addWatch", "removewatches", "tree", "watch",
		"export", "import"} {
		if !have[n] {
			t.Errorf("%s is not a command", n)
		}
	}
}
