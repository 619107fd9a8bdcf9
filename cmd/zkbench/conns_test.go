package main

import (
	"bytes"
	"context"
	"net"
	"runtime"
	"strings"
	"testing"
)

func TestConnsSource(t *testing.T) {
	if got := connsSource(5, 1); got != nil {
		t.Errorf("connsSource(5, 1) = %v, want nil (the kernel's choice)", got)
	}
	for _, c := range []struct {
		i, k int
		want string
	}{{0, 3, "127.0.0.1"}, {1, 3, "127.0.0.2"}, {2, 3, "127.0.0.3"}, {4, 3, "127.0.0.2"}, {253, 254, "127.0.0.254"}} {
		if got := connsSource(c.i, c.k).String(); got != c.want {
			t.Errorf("connsSource(%d, %d) = %s, want %s", c.i, c.k, got, c.want)
		}
	}
	f := &connsFlags{}
	for n, want := range map[int]int{1: 1, 25000: 1, 25001: 2, 100000: 4} {
		if got := f.sourcesFor(n); got != want {
			t.Errorf("sourcesFor(%d) = %d, want %d", n, got, want)
		}
	}
	f.sources = 7
	if got := f.sourcesFor(10); got != 7 {
		t.Errorf("sourcesFor with -conns-sources 7 = %d", got)
	}
}

// TestConnsDialFromSource checks that a connection from a chosen source
// address really comes from it (IP_BIND_ADDRESS_NO_PORT on Linux).
func TestConnsDialFromSource(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("source addresses are spread on Linux only")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: connsSource(1, 2)}, Control: bindNoPort}
	c, err := d.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if host, _, _ := net.SplitHostPort(s.RemoteAddr().String()); host != "127.0.0.2" {
		t.Errorf("the server saw %s, want a connection from 127.0.0.2", s.RemoteAddr())
	}
}

// TestConnsAgainstZkraft runs -op conns on an in-process zkraft with a
// few connections over two source addresses: every connection is served
// and gets every fire's event exactly once.
func TestConnsAgainstZkraft(t *testing.T) {
	args := []string{"-op", "conns", "-servers", "zkraft", "-n", "40", "-conns-fires", "2",
		"-conns-probe", "50ms", "-warmup", "10ms", "-conns-wait", "20s", "-json"}
	if runtime.GOOS == "linux" {
		args = append(args, "-conns-sources", "2")
	}
	var stderr bytes.Buffer
	o, err := parseFlags(args, &stderr)
	if err != nil {
		t.Fatalf("parseFlags: %v\n%s", err, stderr.String())
	}
	var out bytes.Buffer
	rep := newConnsReporter(&out, o)
	res, err := connsTarget(context.Background(), o, "zkraft")
	if err != nil {
		t.Fatal(err)
	}
	rep.add(res)
	if res.Served != 40 || res.OpenFailures != 0 || res.Lost != 0 {
		t.Errorf("served %d of 40, %d failed to open (%s), %d lost (%s)", res.Served, res.OpenFailures, res.FirstOpenErr, res.Lost, res.FirstLost)
	}
	if len(res.Fires) != 2 {
		t.Fatalf("%d fires, want 2", len(res.Fires))
	}
	for i, f := range res.Fires {
		if f.Got != 40 || f.Missing != 0 || f.LastMs <= 0 {
			t.Errorf("fire %d: %d events, %d missing, last %.2f ms; want 40, 0, > 0", i+1, f.Got, f.Missing, f.LastMs)
		}
	}
	if res.Unexpected != 0 || res.ArmErrors != 0 {
		t.Errorf("%d unexpected events, %d watch errors; want none", res.Unexpected, res.ArmErrors)
	}
	if res.Probe.Base.Pairs == 0 || res.Probe.Idle.Pairs == 0 || res.Probe.Base.Errors+res.Probe.Idle.Errors+res.Probe.Fire.Errors != 0 {
		t.Errorf("probe: %+v", res.Probe)
	}
	if err := rep.finish(); err != nil || !strings.Contains(out.String(), `"served": 40`) {
		t.Errorf("JSON report (%v): %s", err, out.String())
	}
}
