package integration

import (
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestHarness_CloseLeavesNoGoroutines starts a server and a cluster with
// clients, lets the test end, and checks that every goroutine they started
// is gone. (TestMain checks the same over the whole package.)
func TestHarness_CloseLeavesNoGoroutines(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Run("work", func(t *testing.T) {
		s := StartServer(t, WithFakeClock())
		c, _ := s.Connect(t)
		_, err := c.Create("/e", nil, zk.FlagEphemeral, openACL)
		require.NoError(t, err)

		cl := StartCluster(t, 3)
		cc, _ := cl.Connect(t)
		_, err = cc.Create("/x", nil, 0, openACL)
		require.NoError(t, err)
		cl.Kill(cl.Leader())
		cl.WaitForLeader()
	})
	goleak.VerifyNone(t, before)
}

// TestHarness_ManyServersInParallel runs independent servers and clusters
// side by side in one test binary: each has its own ports, data and state.
func TestHarness_ManyServersInParallel(t *testing.T) {
	for i := 0; i < 16; i++ {
		t.Run(fmt.Sprintf("server%d", i), func(t *testing.T) {
			t.Parallel()
			s := StartServer(t)
			c, _ := s.Connect(t)
			for j := 0; j < 20; j++ {
				_, err := c.Create(fmt.Sprintf("/n%d", j), []byte(fmt.Sprint(i)), 0, openACL)
				require.NoError(t, err)
			}
			kids, _, err := c.Children("/")
			require.NoError(t, err)
			require.Len(t, kids, 21, "only this server's nodes and /zookeeper")
		})
	}
	for i := 0; i < 2; i++ {
		t.Run(fmt.Sprintf("cluster%d", i), func(t *testing.T) {
			t.Parallel()
			cl := StartCluster(t, 3)
			c, _ := cl.Connect(t)
			_, err := c.Create("/only-mine", nil, 0, openACL)
			require.NoError(t, err)
			kids, _, err := c.Children("/")
			require.NoError(t, err)
			require.ElementsMatch(t, []string{"only-mine", "zookeeper"}, kids)
		})
	}
}
