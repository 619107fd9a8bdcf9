package deploy_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// TestStatefulSetScalesThreeToFive starts deploy/kubernetes's pods zk-0..2
// as `zkserver container` processes with the environment the kubelet
// would give them, then zk-3 and zk-4 at once, as `kubectl scale
// --replicas=5` with podManagementPolicy Parallel would: they must join as
// voters through reconfig, the ensemble must keep its quorum when its
// leader dies, and a restarted joiner must rejoin without a second add.
func TestStatefulSetScalesThreeToFive(t *testing.T) {
	k := readKubeEnv(t)
	r := newRemap(t)
	var procs []*proc
	for i := 0; i < 5; i++ {
		procs = append(procs, loopbackPod(t, r, k.pod(t, i, "s3cret"), t.TempDir()))
	}
	for _, p := range procs[:3] {
		p.start(t)
	}
	for _, p := range procs[:3] {
		p.waitLog(t, "msg=serving", 1, 30*time.Second)
	}
	waitModes(t, procs[:3], 30*time.Second)

	var wg sync.WaitGroup
	for _, p := range procs[3:] {
		p.start(t)
		wg.Add(1)
		go func() { defer wg.Done(); p.waitLog(t, "join: added to the ensemble", 1, 60*time.Second) }()
	}
	wg.Wait()
	c := connect(t, procs[0].client)
	require.Equal(t, 5, voters(t, c))
	leader := waitModes(t, procs, 30*time.Second)

	// Data written through a newcomer reaches a founder.
	c5 := connect(t, procs[4].client)
	_, err := c5.Create("/scaled", []byte("5"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	// Five voters survive the loss of their leader (and would of two).
	procs[leader].kill(t)
	var live []*proc
	var addrs []string
	for i, p := range procs {
		if i != leader {
			live = append(live, p)
			addrs = append(addrs, p.client)
		}
	}
	waitModes(t, live, 30*time.Second)
	after := connect(t, addrs...)
	_, err = after.Create("/after-leader-loss", nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	_, _, err = after.Get("/scaled")
	require.NoError(t, err)

	// A joiner restarted from its volume is a member already: no reconfig.
	joiner := procs[3]
	if leader == 3 {
		joiner = procs[4]
	}
	joiner.kill(t)
	joiner.start(t)
	joiner.waitLog(t, "join: already a member", 1, 30*time.Second)
	waitModes(t, live, 30*time.Second)
	require.Equal(t, 5, voters(t, after))
}

// voters counts the participants /zookeeper/config lists, after a sync.
func voters(t *testing.T, c *zk.Conn) int {
	t.Helper()
	_, err := c.Sync("/zookeeper/config")
	require.NoError(t, err)
	data, _, err := c.Get("/zookeeper/config")
	require.NoError(t, err)
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "server.") && !strings.Contains(l, ":observer") {
			n++
		}
	}
	t.Logf("/zookeeper/config:\n%s", data)
	return n
}
