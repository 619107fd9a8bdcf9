package server_test

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/server"
)

// A program embeds an in-memory server: configure, start, serve, close.
func ExampleNew() {
	cfg := server.DefaultConfig()
	cfg.ClientPortAddress, cfg.ClientPort = "127.0.0.1", 0 // any free port
	srv, err := server.New(cfg)
	if err != nil {
		panic(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		panic(err)
	}
	defer srv.Close()

	conn, _, err := zk.Connect([]string{srv.Addr()}, 10*time.Second, zk.WithLogger(silent{}))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	p, err := conn.Create("/hello", []byte("world"), 0, zk.WorldACL(zk.PermAll))
	fmt.Println(p, err)
	// Output: /hello <nil>
}

type silent struct{}

func (silent) Printf(string, ...any) {}
