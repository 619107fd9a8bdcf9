package integration

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
)

// TestRestartRecoversEverything restarts a server on the same dataDir and
// port: acknowledged writes, Stats, the session and its ephemeral survive,
// and zxids continue in a later epoch. One run recovers from the log alone,
// the other from a snapshot plus the log after it.
func TestRestartRecoversEverything(t *testing.T) {
	for _, snapshot := range []bool{false, true} {
		name := map[bool]string{false: "log only", true: "snapshot and log"}[snapshot]
		t.Run(name, func(t *testing.T) {
			dir, port := t.TempDir(), FreePort(t)
			durable := WithConfig(func(c *server.Config) { c.DataDir, c.ClientPort = dir, port })
			s1 := StartServer(t, durable)
			c, events := s1.Connect(t)
			acl := zk.WorldACL(zk.PermAll)
			_, err := c.Create("/p", []byte("v1"), 0, acl)
			require.NoError(t, err)
			seq, err := c.Create("/p/s-", nil, zk.FlagSequence, acl)
			require.NoError(t, err)
			if snapshot {
				require.NoError(t, s1.Snapshot())
			}
			before, err := c.Set("/p", []byte("v2"), 0)
			require.NoError(t, err)
			_, err = c.Create("/eph", nil, zk.FlagEphemeral, acl)
			require.NoError(t, err)
			sid := c.SessionID()
			require.NoError(t, s1.Close())
			waitState(t, events, zk.StateDisconnected)

			StartServer(t, durable)
			waitState(t, events, zk.StateHasSession)
			require.Equal(t, sid, c.SessionID(), "the session survives the restart")
			data, after, err := c.Get("/p")
			require.NoError(t, err)
			require.Equal(t, "v2", string(data))
			require.Equal(t, *before, *after, "Stats are recovered exactly")
			ok, st, err := c.Exists("/eph")
			require.NoError(t, err)
			require.True(t, ok, "the live session's ephemeral survives")
			require.Equal(t, sid, st.EphemeralOwner)
			kids, _, err := c.Children("/p")
			require.NoError(t, err)
			require.Equal(t, []string{seq[len("/p/"):]}, kids)

			next, err := c.Set("/p", []byte("v3"), -1)
			require.NoError(t, err)
			require.Greater(t, next.Mzxid>>32, before.Mzxid>>32, "a restart starts a new epoch")
		})
	}
}
