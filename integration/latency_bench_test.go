package integration

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// BenchmarkSingleClient measures one client's sequential request latency
// (ns/op is the round trip) against zkraft and, when installed, Apache
// ZooKeeper 3.8 in the same run:
//
//	go test ./integration/ -run '^$' -bench SingleClient -benchtime 2000x
func BenchmarkSingleClient(b *testing.B) {
	targets := map[string]func(b *testing.B) string{
		"zkraft": func(b *testing.B) string { return StartServer(b).Addr() },
		"zookeeper": func(b *testing.B) string {
			return sharedRealZK(b)
		},
	}
	for _, name := range []string{"zkraft", "zookeeper"} {
		b.Run(name, func(b *testing.B) {
			addr := targets[name](b)
			c, ev, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(quietLogger{}))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			for c.State() != zk.StateHasSession {
				<-ev
			}
			root := fmt.Sprintf("/bench-%d", time.Now().UnixNano())
			if _, err := c.Create(root, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				b.Fatal(err)
			}
			data := make([]byte, 100)
			b.Run("get", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, _, err := c.Get(root); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("set", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := c.Set(root, data, -1); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("create", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := c.Create(root+"/n-", data, zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
