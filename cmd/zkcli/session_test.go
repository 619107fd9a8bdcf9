package main

import (
	"strings"
	"testing"
)

// TestSessionCommands checks whoami, addWatch and removewatches, which
// zkcli sends on go-zookeeper's connection through the session tap.
func TestSessionCommands(t *testing.T) {
	addr := startZkraft(t)
	for _, tc := range []struct {
		args string
		want string
		code int
	}{
		{"whoami", "Auth scheme: User\nip: 127.0.0.1\n", 0},
		{"-auth digest:u:p whoami", "Auth scheme: User\nip: 127.0.0.1\ndigest: u\n", 0},
		{"addauth digest u:p whoami", "Auth scheme: User\nip: 127.0.0.1\ndigest: u\n", 0},
		{"addWatch /w", "", 0},
		{"addWatch -m persistent /w", "", 0},
		{"addWatch -m bogus /w", "addWatch " + addWatchUsage + "\n", 1},
		{"addWatch /w /x", "addWatch " + addWatchUsage + "\n", 1},
		{"addWatch w", "Path must start with / character\n", 1},
		{"removewatches /w", "KeeperErrorCode = No such watcher for /w\n", 1},
		{"removewatches /w -d", "KeeperErrorCode = No such watcher for /w\n", 1},
		{"removewatches", "removewatches path [-c|-d|-a] [-l]\n", 1},
	} {
		got, code := zkcli(t, addr, strings.Fields(tc.args)...)
		if got != tc.want || code != tc.code {
			t.Errorf("zkcli %s: exit %d, output\n%s\nwant exit %d, output\n%s", tc.args, code, got, tc.code, tc.want)
		}
	}
}
