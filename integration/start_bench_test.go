package integration

import (
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"
)

// BenchmarkStartToFirstOp measures an in-process server (and a three-node
// ensemble with a leader) from start to the first successful create through
// go-zookeeper, then shuts it down:
//
//	go test ./integration/ -run '^$' -bench StartToFirstOp -benchtime 20x
//
// Apache ZooKeeper 3.8 on the same machine needs about 760 ms from process
// start to answering ruok (/work/shared/tools/realzk.sh prints ready_ms).
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
}

func firstOp(b *testing.B, addr string) {
	c, _ := connectTo(b, []string{addr})
	if _, err := c.Create(fmt.Sprintf("/first-%d", b.N), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		b.Fatal(err)
	}
	c.Close()
}
