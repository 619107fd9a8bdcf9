package integration

import (
	"context"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

func TestHarness_ExpireSessionAndInspect(t *testing.T) {
	s := StartServer(t)
	owner, ownerEvents := s.Connect(t)
	watcher, _ := s.Connect(t)
	_, err := owner.Create("/lease", []byte("x"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, _, w, err := watcher.GetW("/lease")
	require.NoError(t, err)

	require.Contains(t, s.DumpTree(), "/lease len=1 version=0 children=0 owner=0x")
	require.Equal(t, map[int64][]string{owner.SessionID(): {"/lease"}}, s.Ephemerals())
	require.Equal(t, []int64{watcher.SessionID()}, s.WatchesByPath()["/lease"])
	require.Len(t, s.Sessions(), 2)

	expired := owner.SessionID()
	require.NoError(t, s.ExpireSession(context.Background(), expired))
	require.Equal(t, zk.EventNodeDeleted, waitEvent(t, w).Type, "expiry deletes the ephemeral and fires watches")
	waitState(t, ownerEvents, zk.StateExpired)
	require.Empty(t, s.Ephemerals())
	for _, info := range s.Sessions() { // go-zookeeper may already have a new session
		require.NotEqual(t, expired, info.ID, "the expired session is gone")
	}
}
