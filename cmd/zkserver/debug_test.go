package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDebugMux(t *testing.T) {
	hs := httptest.NewServer(debugMux())
	defer hs.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(hs.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}

	code, body := get(memStatsPath + "?gc=1")
	require.Equal(t, http.StatusOK, code)
	var ms memStats
	require.NoError(t, json.Unmarshal([]byte(body), &ms), body)
	require.True(t, ms.GCForced)
	require.NotZero(t, ms.HeapAlloc)
	require.GreaterOrEqual(t, ms.HeapInuse, ms.HeapAlloc)
	require.NotZero(t, ms.StackInuse, "goroutine stacks are reported")
	require.GreaterOrEqual(t, ms.Sys, ms.HeapSys)
	require.NotZero(t, ms.NumGC)

	code, body = get(memStatsPath)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `"gc_forced":false`)

	code, body = get("/debug/vars")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `"memstats"`)
	code, body = get("/debug/pprof/")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "goroutine")
	code, _ = get("/")
	require.Equal(t, http.StatusNotFound, code, "only /debug/ paths are served")

	resp, err := http.Post(hs.URL+memStatsPath+"?gc=1", "text/plain", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

func TestPprofFlag(t *testing.T) {
	bin := buildServer(t)
	port, debugPort := freePort(t), freePort(t)
	cfg := writeCfg(t, fmt.Sprintf("tickTime=2000\nclientPort=%d\nclientPortAddress=127.0.0.1\n", port))
	debugAddr := fmt.Sprintf("127.0.0.1:%d", debugPort)
	var logs bytes.Buffer
	cmd := exec.Command(bin, "-pprof", debugAddr, cfg)
	cmd.Stderr = &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitListening(t, fmt.Sprintf("127.0.0.1:%d", port))
	waitListening(t, debugAddr)

	resp, err := http.Get("http://" + debugAddr + memStatsPath + "?gc=1")
	require.NoError(t, err)
	var ms memStats
	err = json.NewDecoder(resp.Body).Decode(&ms)
	resp.Body.Close()
	require.NoError(t, err)
	require.True(t, ms.GCForced)
	require.NotZero(t, ms.HeapAlloc)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "clean exit; logs:\n%s", logs.String())
	require.Contains(t, logs.String(), "debug HTTP listening")
	c := http.Client{Timeout: time.Second}
	if resp, err := c.Get("http://" + debugAddr + memStatsPath); err == nil {
		resp.Body.Close()
		t.Fatal("debug listener still answers after the server stopped")
	}
}

func TestPprofFlagErrors(t *testing.T) {
	bin := buildServer(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-pprof"}, "flag needs an argument"},
		{[]string{"-nosuchflag"}, "usage: zkserver [-version] [-port port] [-data-dir dir] [-log-level level] [-pprof host:port] [-jaas file] [zoo.cfg]"},
		{[]string{"-pprof", "127.0.0.1:1:2"}, "-pprof: listen tcp"},
		{[]string{"-pprof", "127.0.0.1:0", "a.cfg", "b.cfg"}, "usage: zkserver [-version] [-port port] [-data-dir dir] [-log-level level] [-pprof host:port] [-jaas file] [zoo.cfg]"},
	}
	for _, c := range cases {
		out, err := exec.Command(bin, c.args...).CombinedOutput()
		require.Error(t, err, "%q", c.args)
		require.True(t, strings.Contains(string(out), c.want), "%q: output %q, want %q", c.args, out, c.want)
	}
}

// -version prints the version srvr reports and exits.
func TestVersionFlag(t *testing.T) {
	out, err := exec.Command(buildServer(t), "-version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Regexp(t, `^zkserver 3\.8\.0-zkraft[A-Za-z0-9.-]*, built on \d\d/\d\d/\d\d\d\d \d\d:\d\d GMT\n$`, string(out))
}
