package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// smallN is the size of each scale op in the tests.
var smallN = map[string]int{"fill": 200, "sessions": 50, "watchers": 50}

// countKey is the figure that counts what the op made.
var countKey = map[string]string{"fill": "znodes", "sessions": "sessions", "watchers": "watchers"}

func scaleOptions(t *testing.T, op string) *options {
	t.Helper()
	args := []string{"-op", op, "-n", strconv.Itoa(smallN[op]), "-sessions", "2", "-inflight", "4", "-size", "10"}
	var stderr bytes.Buffer
	o, err := parseFlags(args, &stderr)
	if err != nil {
		t.Fatalf("parseFlags(%q): %v\n%s", args, err, stderr.String())
	}
	return o
}

func figureOf(res *scaleResult, key string) (figure, bool) {
	for _, f := range res.Figures {
		if f.Key == key {
			return f, true
		}
	}
	return figure{}, false
}

// runScaleOps runs every scale op on addrs and checks the counts, the
// delivery percentiles and that the bench root is gone; memory says
// whether the memory figures must be there.
func runScaleOps(t *testing.T, addrs []string, mem *procMem, memory bool) map[string]*scaleResult {
	t.Helper()
	results := map[string]*scaleResult{}
	for _, op := range []string{"fill", "sessions", "watchers"} {
		t.Run(op, func(t *testing.T) {
			o := scaleOptions(t, op)
			res, err := runScaleOnce(context.Background(), o, addrs, mem)
			if err != nil {
				t.Fatal(err)
			}
			results[op] = res
			if f, ok := figureOf(res, countKey[op]); !ok || !f.OK || int(f.Value) != smallN[op] {
				t.Errorf("%s = %+v, want %d", countKey[op], f, smallN[op])
			}
			for _, f := range res.Figures {
				isMem := strings.HasPrefix(f.Key, "rss_") || strings.HasPrefix(f.Key, "heap_")
				// /proc counts CPU in 10 ms ticks: a small op may cost none.
				isCPU := strings.Contains(f.Key, "_cpu_")
				switch {
				case isMem && f.OK != memory:
					t.Errorf("%s available: %v, want %v (notes %q)", f.Key, f.OK, memory, res.Notes)
				case isCPU && (!f.OK || f.Value < 0):
					t.Errorf("%s = %+v, want a value of at least 0", f.Key, f)
				case !isMem && !isCPU && (!f.OK || f.Value <= 0):
					t.Errorf("%s = %+v, want a positive value", f.Key, f)
				}
			}
			if op == "watchers" {
				p50, _ := figureOf(res, "delivery_p50_ms")
				p99, _ := figureOf(res, "delivery_p99_ms")
				mx, _ := figureOf(res, "delivery_max_ms")
				if !(p50.Value <= p99.Value && p99.Value <= mx.Value) {
					t.Errorf("delivery p50 %v p99 %v max %v not ordered", p50.Value, p99.Value, mx.Value)
				}
			}
			if got := rootChildren(t, addrs); !slices.Equal(got, []string{"zookeeper"}) {
				t.Errorf("after the run / has %q, want the bench root cleaned up", got)
			}
		})
	}
	return results
}

func TestScaleOpsInProcess(t *testing.T) {
	tg := startTestTarget(t, "zkraft", testOptions(t, "get"))
	mem := findMemory(tg.addrs)
	if !mem.inProcess || len(mem.procs) != 0 || !strings.Contains(mem.describe(), "in-process") {
		t.Fatalf("in-process target: %+v, %q", mem, mem.describe())
	}
	runScaleOps(t, tg.addrs, mem, false)
}

func TestScaleReportText(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-compare", "zkraft,zkraft", "-op", "watchers", "-n", "20", "-inflight", "4"}
	if code := realMain(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"op=watchers n=20", "round 1 A: watchers notified 20", "round 1 B:",
		"event p99 after set sent", "live heap per watcher", "n/a", "memory not available: in-process target"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "round ") != 2 {
		t.Errorf("want one run per target by default:\n%s", out)
	}
}

func TestScaleReportJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-compare", "zkraft,zkraft", "-op", "fill", "-n", "30", "-rounds", "2", "-json"}
	if code := realMain(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	var doc struct {
		Config scaleJSONConfig
		Runs   []struct {
			Round   int
			Target  string
			Figures map[string]float64
		}
		Summary []struct {
			Key    string
			Median map[string]*float64
			Ratio  *float64 `json:"ratio_a_b"`
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	var order []string
	for _, r := range doc.Runs {
		order = append(order, r.Target)
		if r.Figures["znodes"] != 30 || r.Figures["fill_ms"] <= 0 {
			t.Errorf("run %+v", r)
		}
		if _, ok := r.Figures["heap_per_znode_bytes"]; ok {
			t.Errorf("in-process run has a heap figure: %+v", r)
		}
	}
	if !slices.Equal(order, []string{"A", "B", "A", "B"}) {
		t.Errorf("runs %v, want A B A B", order)
	}
	if doc.Config.Op != "fill" || doc.Config.N != 30 || doc.Config.Rounds != 2 {
		t.Errorf("config %+v", doc.Config)
	}
	for _, row := range doc.Summary {
		switch row.Key {
		case "znodes":
			if *row.Median["A"] != 30 || row.Ratio == nil || *row.Ratio != 1 {
				t.Errorf("summary %s: %v %v", row.Key, row.Median, row.Ratio)
			}
		case "heap_per_znode_bytes":
			if row.Median["A"] != nil || row.Ratio != nil {
				t.Errorf("summary %s: %v %v, want null", row.Key, row.Median, row.Ratio)
			}
		}
	}
}

// startZkserverProcess builds zkserver and starts it as its own process with a
// debug listener; it is killed when the test ends.
func startZkserverProcess(t *testing.T) (addr string, pid int) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "zkserver")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/zkraft/zkraft/cmd/zkserver").CombinedOutput(); err != nil {
		t.Fatalf("build zkserver: %v\n%s", err, out)
	}
	port, err1 := freePort()
	debugPort, err2 := freePort()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	cfg := filepath.Join(dir, "zoo.cfg")
	body := fmt.Sprintf("tickTime=2000\nclientPort=%d\nclientPortAddress=127.0.0.1\nmaxClientCnxns=0\nadmin.enableServer=false\n4lw.commands.whitelist=*\n", port)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-pprof", fmt.Sprintf("127.0.0.1:%d", debugPort), cfg)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr = fmt.Sprintf("127.0.0.1:%d", port)
	for _, a := range []string{addr, fmt.Sprintf("127.0.0.1:%d", debugPort)} {
		deadline := time.Now().Add(10 * time.Second)
		for {
			nc, err := net.DialTimeout("tcp", a, time.Second)
			if err == nil {
				nc.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("zkserver does not listen on %s: %v", a, err)
			}
			time.Sleep(10 * time.Millisecond) // poll interval of the condition above
		}
	}
	return addr, cmd.Process.Pid
}

func TestScaleOpsZkserverProcess(t *testing.T) {
	addr, pid := startZkserverProcess(t)
	mem := findMemory([]string{addr})
	if len(mem.procs) != 1 || mem.procs[0].pid != pid || mem.procs[0].heap == nil {
		t.Fatalf("found %q, want pid %d with its debug listener", mem.describe(), pid)
	}
	res := runScaleOps(t, []string{addr}, mem, true)
	if f, ok := figureOf(res["fill"], "heap_per_znode_bytes"); !ok || f.Value <= 0 {
		t.Errorf("heap per znode %+v, want positive", f)
	}
}

func TestScaleOpsZooKeeper(t *testing.T) {
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	tg := startTestTarget(t, "zookeeper", testOptions(t, "get"))
	mem := findMemory(tg.addrs)
	if len(mem.procs) != 1 {
		t.Fatalf("found %q, want the JVM", mem.describe())
	}
	if mem.procs[0].heap == nil {
		t.Skipf("ZooKeeper's heap cannot be read here: %s", mem.describe())
	}
	res := runScaleOps(t, tg.addrs, mem, true)
	if f, ok := figureOf(res["fill"], "heap_after_bytes"); !ok || f.Value < 1e6 {
		t.Errorf("JVM live heap %+v, want over 1 MB", f)
	}
}

func TestScaleFlags(t *testing.T) {
	cases := []struct {
		args               []string
		n, inflight, round int
	}{
		{[]string{"-op", "fill"}, 200000, 8, 1},
		{[]string{"-op", "sessions", "-compare", "zkraft,zookeeper"}, 10000, 16, 1},
		{[]string{"-op", "watchers", "-n", "7", "-inflight", "3", "-rounds", "2"}, 7, 3, 2},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		o, err := parseFlags(c.args, &stderr)
		if err != nil {
			t.Errorf("%q: %v\n%s", c.args, err, stderr.String())
			continue
		}
		if o.n != c.n || o.inflight != c.inflight || o.rounds != c.round {
			t.Errorf("%q: n %d inflight %d rounds %d; want %d %d %d", c.args, o.n, o.inflight, o.rounds, c.n, c.inflight, c.round)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-op", "get", "-n", "5"}, "-n applies to -op fill"},
		{[]string{"-op", "fill", "-n", "-5"}, "-n -5 must be positive"},
	} {
		var stdout, stderr bytes.Buffer
		if code := realMain(context.Background(), c.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
}
