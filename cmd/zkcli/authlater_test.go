package main

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// TestSessionAuthWhenTheServerComesLater: a session started with -auth
// while its server refuses connections (the prompt shows CONNECTING and
// go-zookeeper goes on trying) adds the credentials once it connects.
func TestSessionAuthWhenTheServerComesLater(t *testing.T) {
	addr := startZkraft(t)
	acl := "digest:" + digestID("u", "p") + ":cdrwa"
	if out, code := zkcli(t, addr, "-auth", "digest:u:p", "create", "/later", "x", acl); code != 0 {
		t.Fatalf("create: %s", out)
	}
	gate := startGate(t, addr)
	s := startSessionArgs(t, "-server", gate.addr, "-timeout", "1s", "-auth", "digest:u:p")
	gate.waitRefused(2) // the first try is over
	gate.open.Store(true)
	s.waitFor(watcherText("WatchedEvent state:SyncConnected type:None path:null"))
	s.send("get /later")
	s.waitFor("x\n")
	if code := s.end(); code != 0 {
		t.Errorf("exit %d:\n%s", code, s.out.String())
	}
}

// gate is a loopback proxy to a server that closes every connection
// until open is set.
type gate struct {
	addr    string
	open    atomic.Bool
	refused atomic.Int32
	t       *testing.T
}

func startGate(t *testing.T, target string) *gate {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	g := &gate{addr: ln.Addr().String(), t: t}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if !g.open.Load() {
				c.Close()
				g.refused.Add(1)
				continue
			}
			go pipeTo(c, target)
		}
	}()
	return g
}

// waitRefused waits until the gate has turned n connections away.
func (g *gate) waitRefused(n int32) {
	waitUntil(g.t, func() bool { return g.refused.Load() >= n })
}

func pipeTo(c net.Conn, target string) {
	defer c.Close()
	s, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer s.Close()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
}

// waitUntil waits up to 10 s for cond.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(10 * time.Millisecond) // poll interval of the condition
	}
}
