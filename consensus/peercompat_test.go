package consensus

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRollingUpgradeMixesPeerProtocols: an ensemble in the middle of a
// rolling upgrade, one server still speaking only NetworkTransport's
// protocol (as servers before consensus/transport did), replicates to
// every server, and keeps doing so when the leader changes, whichever
// kind of server leads next.
func TestRollingUpgradeMixesPeerProtocols(t *testing.T) {
	for _, old := range []int{0, 2} {
		t.Run(fmt.Sprintf("server %d old", old+1), func(t *testing.T) {
			nodes, _ := startEnsembleWith(t, 3, func(c *Config) {
				c.ElectionTimeout = testElectionTimeout
				c.legacyPeerProtocol = c.ServerID == int64(old+1)
			})
			waitAllKnowLeader(t, nodes)
			writeEverywhere := func(live []*Node, path string) {
				t.Helper()
				require.Eventually(t, func() bool { return leaderOf(live) >= 0 }, 20*time.Second, 5*time.Millisecond)
				a, err := live[leaderOf(live)].ProposeAsync(createTestNode(path)).Wait()
				require.NoError(t, err)
				require.NoError(t, a.Result.Err)
				for _, n := range live {
					require.Eventually(t, func() bool { return nodeHas(n, path) }, 20*time.Second, 5*time.Millisecond,
						"server %s applies %s", n.self, path)
				}
			}
			propose(t, nodes[leaderOf(nodes)], &Command{Kind: KindCreateSession, Session: testSession, Timeout: 10000, Time: 1})
			writeEverywhere(nodes, "/mixed")

			l := leaderOf(nodes)
			require.NoError(t, nodes[l].HandOver())
			require.Eventually(t, func() bool { i := leaderOf(nodes); return i >= 0 && i != l }, 20*time.Second, 5*time.Millisecond)
			writeEverywhere(nodes, "/mixed-after-handover")

			l = leaderOf(nodes)
			nodes[l].Close()
			live := append(append([]*Node(nil), nodes[:l]...), nodes[l+1:]...)
			writeEverywhere(live, "/mixed-after-kill")
		})
	}
}
