package main

import (
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseVmRSS(t *testing.T) {
	status := "Name:\tjava\nVmPeak:\t 5000 kB\nVmRSS:\t   81234 kB\nRssAnon:\t 70000 kB\n"
	if n, err := parseVmRSS([]byte(status)); err != nil || n != 81234*1024 {
		t.Errorf("parseVmRSS = %d, %v; want %d", n, err, 81234*1024)
	}
	for _, bad := range []string{"Name:\tx\n", "VmRSS:\t12 MB\n", "VmRSS:\tlots kB\n"} {
		if _, err := parseVmRSS([]byte(bad)); err == nil {
			t.Errorf("parseVmRSS(%q) succeeded", bad)
		}
	}
	n, err := readRSS(os.Getpid())
	if err != nil || n < 1<<20 {
		t.Errorf("own RSS %d, %v", n, err)
	}
}

func TestParseClassHistogram(t *testing.T) {
	out := `12345:
 num     #instances         #bytes  class name (module)
-------------------------------------------------------
   1:        200512       25664512  [B (java.base@17.0.13)
   2:        200100        6403200  org.apache.zookeeper.server.DataNode
Total       1201044       71234560
`
	if n, err := parseClassHistogram([]byte(out)); err != nil || n != 71234560 {
		t.Errorf("parseClassHistogram = %d, %v", n, err)
	}
	if _, err := parseClassHistogram([]byte("12345:\ncom.sun.tools.attach.AttachNotSupportedException\n")); err == nil {
		t.Error("no Total line accepted")
	}
}

func TestListenInodes(t *testing.T) {
	table := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:0885 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1 0 100 0 0 10 0
   1: 0100007F:0885 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 222 1 0 20 4 30 10 -1
   2: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 333 1 0 100 0 0 10 0
`
	if got := listenInodes([]byte(table), 2181); !slices.Equal(got, []uint64{111}) {
		t.Errorf("port 2181: %v, want [111] (the listener, not the connection)", got)
	}
	if got := listenInodes([]byte(table), 8080); !slices.Equal(got, []uint64{333}) {
		t.Errorf("port 8080: %v, want [333]", got)
	}
	if got := listenInodes([]byte(table), 1); got != nil {
		t.Errorf("port 1: %v", got)
	}
}

func TestListeningPID(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if pid, err := listeningPID(port); err != nil || pid != os.Getpid() {
		t.Errorf("listeningPID(%d) = %d, %v; want this process %d", port, pid, err, os.Getpid())
	}
	m := findMemory([]string{l.Addr().String()})
	if !m.inProcess || len(m.procs) != 0 {
		t.Errorf("own listener: %+v", m)
	}
	l.Close()
	if _, err := listeningPID(port); err == nil {
		t.Errorf("listeningPID(%d) found a closed listener", port)
	}
	if m := findMemory([]string{"10.1.2.3:2181"}); len(m.procs) != 0 || !strings.Contains(m.why, "not on a loopback") {
		t.Errorf("remote target: %+v", m)
	}
}

func TestPprofAddr(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"zkserver", "-pprof", "127.0.0.1:6060", "zoo.cfg"}, "127.0.0.1:6060"},
		{[]string{"/tmp/zkserver", "--pprof=:6061"}, ":6061"},
		{[]string{"zkserver", "zoo.cfg", "-pprof", "x:1"}, ""},
		{[]string{"zkserver", "-pprof"}, ""},
		{[]string{"java", "-Xmx512m", "-cp", "a.jar"}, ""},
	}
	for _, c := range cases {
		if got, ok := pprofAddr(c.args); got != c.want || ok != (c.want != "") {
			t.Errorf("pprofAddr(%q) = %q, %v; want %q", c.args, got, ok, c.want)
		}
	}
	for in, want := range map[string]string{":6060": "127.0.0.1:6060", "0.0.0.0:1": "127.0.0.1:1",
		"[::]:2": "[::1]:2", "127.0.0.2:3": "127.0.0.2:3"} {
		if got := loopbackFor(in); got != want {
			t.Errorf("loopbackFor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPickAndFormat(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 200; i++ {
		d = append(d, time.Duration(i))
	}
	if pick(d, 50) != 100 || pick(d, 99) != 198 || pick(d, 100) != 200 || pick(d[:1], 99) != 1 {
		t.Errorf("pick: %v %v %v", pick(d, 50), pick(d, 99), pick(d, 100))
	}
	for v, want := range map[float64]string{279: "279 B", -300: "-300 B", 20480: "20.0 KiB", 412 << 20: "412.0 MiB"} {
		if got := formatBytes(v); got != want {
			t.Errorf("formatBytes(%v) = %q, want %q", v, got, want)
		}
	}
}
