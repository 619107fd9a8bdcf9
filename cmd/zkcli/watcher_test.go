package main

import (
	"testing"

	"github.com/go-zookeeper/zk"
)

// TestWatchedEvent checks events as Java's WatchedEvent.toString writes
// them, and which go-zookeeper events zkcli does not print.
func TestWatchedEvent(t *testing.T) {
	for _, tc := range []struct {
		ev   zk.Event
		want string
	}{
		{zk.Event{Type: zk.EventNodeDataChanged, State: zk.StateSyncConnected, Path: "/x"}, "WatchedEvent state:SyncConnected type:NodeDataChanged path:/x"},
		{zk.Event{Type: zk.EventNodeCreated, State: zk.StateSyncConnected, Path: "/a/b"}, "WatchedEvent state:SyncConnected type:NodeCreated path:/a/b"},
		{zk.Event{Type: zk.EventNodeDeleted, State: zk.StateSyncConnected, Path: "/x"}, "WatchedEvent state:SyncConnected type:NodeDeleted path:/x"},
		{zk.Event{Type: zk.EventNodeChildrenChanged, State: zk.StateSyncConnected, Path: "/"}, "WatchedEvent state:SyncConnected type:NodeChildrenChanged path:/"},
		{zk.Event{Type: zk.EventSession, State: zk.StateHasSession}, "WatchedEvent state:SyncConnected type:None path:null"},
		{zk.Event{Type: zk.EventSession, State: zk.StateDisconnected}, "WatchedEvent state:Disconnected type:None path:null"},
		{zk.Event{Type: zk.EventSession, State: zk.StateExpired}, "WatchedEvent state:Expired type:None path:null"},
		{zk.Event{Type: zk.EventSession, State: zk.StateAuthFailed}, "WatchedEvent state:AuthFailed type:None path:null"},
		{zk.Event{Type: zk.EventSession, State: zk.StateConnecting}, ""},
		{zk.Event{Type: zk.EventSession, State: zk.StateConnected}, ""},
		{zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: "/x", Err: zk.ErrClosing}, ""},
	} {
		got, ok := watchedEvent(tc.ev)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%+v: %q, %v; want %q", tc.ev, got, ok, tc.want)
		}
	}
	if got := watcherText("E"); got != "\nWATCHER::\n\nE\n" {
		t.Errorf("watcherText: %q", got)
	}
}
