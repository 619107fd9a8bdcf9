package integration

import (
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/internal/realzk"
)

// BenchmarkStartToFirstOp measures an in-process server (and a three-node
// ensemble with a leader) from start to the first successful create through
// go-zookeeper, then shuts it down:
//
//	go test ./integration/ -run '^$' -bench StartToFirstOp -benchtime 20x
//
// The zookeeper case does the same with Apache ZooKeeper 3.8 from the Debian
// package (a JVM process, forceSync=no), when it is installed.
func BenchmarkStartToFirstOp(b *testing.B) {
	b.Run("server", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			firstOp(b, StartServer(b).Addr())
		}
	})
	b.Run("cluster3", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			c := StartCluster(b, 3)
			firstOp(b, c.Servers[c.Leader()].Addr())
			c.Close()
		}
	})
	b.Run("zookeeper", func(b *testing.B) {
		if ok, reason := realzk.Available(); !ok {
			b.Skip("Apache ZooKeeper not available: " + reason)
		}
		for i := 0; i < b.N; i++ {
			server, err := realzk.Start(b.TempDir(), realzk.Options{})
			if err != nil {
				b.Fatal(err)
			}
			firstOp(b, server.Addr())
			server.Stop()
		}
	})
}

func firstOp(b *testing.B, addr string) {
	c, _ := connectTo(b, []string{addr})
	if _, err := c.Create(fmt.Sprintf("/first-%d", b.N), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		b.Fatal(err)
	}
	c.Close()
}
