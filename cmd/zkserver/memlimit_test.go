package main

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/stretchr/testify/require"
)

// fixedCgroup is a cgroup memory limit for memoryBudget; 0 is none.
func fixedCgroup(limit uint64) func() (uint64, error) {
	return func() (uint64, error) {
		if limit == 0 {
			return 0, memlimit.ErrNoLimit
		}
		return limit, nil
	}
}

func TestMemoryBudget(t *testing.T) {
	broken := func() (uint64, error) { return 0, errors.New("no mountinfo") }
	for _, tc := range []struct {
		name   string
		b      memoryBudget
		want   int64
		source string
	}{
		{"nothing", memoryBudget{cgroup: fixedCgroup(0)}, 0, ""},
		{"unreadable cgroup", memoryBudget{cgroup: broken}, 0, ""},
		{"-Xmx only", memoryBudget{maxHeap: 6 << 30, heapFrom: jvmFlagsEnv, cgroup: fixedCgroup(0)}, 6 << 30, "the maximum heap in SERVER_JVMFLAGS"},
		{"-Xmx, unreadable cgroup", memoryBudget{maxHeap: 6 << 30, heapFrom: jvmFlagsEnv, cgroup: broken}, 6 << 30, "the maximum heap in SERVER_JVMFLAGS"},
		{"cgroup only", memoryBudget{cgroup: fixedCgroup(10 << 30)}, 9 << 30, "90% of the cgroup memory limit 10737418240"},
		{"-Xmx under the cgroup's share", memoryBudget{maxHeap: 4 << 30, heapFrom: jvmFlagsEnv, cgroup: fixedCgroup(10 << 30)}, 4 << 30, "the maximum heap in SERVER_JVMFLAGS"},
		{"-Xmx over the cgroup's share", memoryBudget{maxHeap: 6 << 30, heapFrom: jvmFlagsEnv, cgroup: fixedCgroup(5 << 30)}, 9 << 30 / 2, "90% of the cgroup memory limit 5368709120"},
		{"cgroup v1 without a limit", memoryBudget{cgroup: fixedCgroup(1<<63 - 4096)}, 1 << 62, "90% of the cgroup memory limit 9223372036854771712"},
	} {
		limit, source, _ := tc.b.limit()
		require.Equal(t, tc.want, limit, tc.name)
		require.Equal(t, tc.source, source, tc.name)
	}
}

// TestMaxHeapAsZkServerShPassesIt checks that the last maximum heap wins in
// the order zkServer.sh hands the variables to java.
func TestMaxHeapAsZkServerShPassesIt(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want int64
		from string
	}{
		{map[string]string{}, 0, ""},
		{map[string]string{"SERVER_JVMFLAGS": "-Dx=1", "JVMFLAGS": " "}, 0, ""},
		{map[string]string{"ZK_SERVER_HEAP": "1000"}, 1000 << 20, "ZK_SERVER_HEAP"},
		{map[string]string{"ZK_SERVER_HEAP": "1000", "SERVER_JVMFLAGS": "-Xmx2g"}, 2 << 30, "SERVER_JVMFLAGS"},
		{map[string]string{"ZK_SERVER_HEAP": "1000", "SERVER_JVMFLAGS": "-Xmx2g", "JVMFLAGS": "-XX:MaxHeapSize=3g"}, 3 << 30, "JVMFLAGS"},
		{map[string]string{"SERVER_JVMFLAGS": "-Xmx2g", "JVMFLAGS": "-Xss1m"}, 2 << 30, "SERVER_JVMFLAGS"},
	} {
		lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		got, from, err := maxHeap(lookup)
		require.NoError(t, err, tc.env)
		require.Equal(t, tc.want, got, tc.env)
		require.Equal(t, tc.from, from, tc.env)
	}
	for env, msg := range map[string]string{
		"ZK_SERVER_HEAP=lots":    "ZK_SERVER_HEAP: jaas: invalid maximum heap size: -Xmxlotsm",
		"ZK_SERVER_HEAP=1":       "ZK_SERVER_HEAP: jaas: invalid maximum heap size: -Xmx1m: too small",
		"JVMFLAGS=-Xmx0":         "JVMFLAGS: jaas: invalid maximum heap size: -Xmx0",
		"SERVER_JVMFLAGS='-Xmx1": "SERVER_JVMFLAGS: ",
	} {
		k, v, _ := strings.Cut(env, "=")
		_, _, err := maxHeap(func(name string) (string, bool) { return v, name == k })
		require.ErrorContains(t, err, msg, env)
	}
}

// TestMemoryBudgetSetsTheRuntimeLimit applies a budget and a resized
// cgroup, and reads the runtime's limit back.
func TestMemoryBudgetSetsTheRuntimeLimit(t *testing.T) {
	was := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(was) })
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))

	cg := uint64(10 << 30)
	b := memoryBudget{maxHeap: 6 << 30, heapFrom: jvmFlagsEnv, cgroup: func() (uint64, error) { return cg, nil }}
	applied, err := b.apply(0, log)
	require.NoError(t, err)
	require.Equal(t, int64(6<<30), applied)
	require.Equal(t, int64(6<<30), debug.SetMemoryLimit(-1))

	cg = 5 << 30 // resized below the maximum heap
	applied, _ = b.apply(applied, log)
	require.Equal(t, int64(9<<30/2), applied)
	require.Equal(t, int64(9<<30/2), debug.SetMemoryLimit(-1))

	b.maxHeap, cg = 0, 0 // the limit went away: none
	b.cgroup = fixedCgroup(0)
	applied, _ = b.apply(applied, log)
	require.Zero(t, applied)
	require.Equal(t, int64(1<<63-1), debug.SetMemoryLimit(-1))
}

// TestMemoryLimitFromServerJVMFlags starts zkserver with a maximum heap in
// SERVER_JVMFLAGS: it logs the limit it set, GOMEMLIMIT overrides it, and
// a size java refuses stops the start with the reason.
func TestMemoryLimitFromServerJVMFlags(t *testing.T) {
	bin := buildServer(t)
	env := func(extra ...string) []string {
		var out []string
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			if k != "GOMEMLIMIT" && !slices.Contains(heapVars, k) {
				out = append(out, kv)
			}
		}
		return append(out, extra...)
	}
	want := int64(256 << 20)
	if cg, err := memlimit.FromCgroup(); err == nil && float64(cg)*cgroupShare < float64(want) {
		want = int64(float64(cg) * cgroupShare) // a small container: its share is smaller
	}
	start := func(extra ...string) string {
		t.Helper()
		port := freePort(t)
		cfg := writeCfg(t, fmt.Sprintf("clientPort=%d\nclientPortAddress=127.0.0.1\n", port))
		var logs bytes.Buffer
		cmd := exec.Command(bin, cfg)
		cmd.Env, cmd.Stderr = env(extra...), &logs
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill() })
		waitListening(t, fmt.Sprintf("127.0.0.1:%d", port))
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		require.NoError(t, cmd.Wait())
		return logs.String()
	}
	logs := start(jvmFlagsEnv + "=-Xms64m -Xmx256m -XX:+UseG1GC")
	require.Contains(t, logs, fmt.Sprintf(`msg="memory limit" bytes=%d`, want), logs)

	logs = start(jvmFlagsEnv+"=-Xmx256m", "GOMEMLIMIT=1GiB")
	require.NotContains(t, logs, `msg="memory limit"`, "GOMEMLIMIT wins")

	cmd := exec.Command(bin, writeCfg(t, "clientPort=2181\n"))
	cmd.Env = env(jvmFlagsEnv + "=-Xmx12q")
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "SERVER_JVMFLAGS: jaas: invalid maximum heap size: -Xmx12q")
}
