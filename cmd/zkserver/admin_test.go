package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testlog"
)

// runWithAdmin starts zkserver on a zoo.cfg whose AdminServer listens on
// 127.0.0.1:adminPort, waits for its client port, runs check, then stops
// it with SIGINT and returns its log.
func runWithAdmin(t *testing.T, adminPort int, check func()) string {
	t.Helper()
	return runWithAdminCfg(t, adminPort, "", check)
}

// runWithAdminCfg is runWithAdmin with extra zoo.cfg lines.
func runWithAdminCfg(t *testing.T, adminPort int, extra string, check func()) string {
	t.Helper()
	bin := buildServer(t)
	port := freePort(t)
	cfg := writeCfg(t, fmt.Sprintf("clientPort=%d\nclientPortAddress=127.0.0.1\nadmin.serverAddress=127.0.0.1\nadmin.serverPort=%d\n%s", port, adminPort, extra))
	logs := &testlog.Buffer{}
	cmd := exec.Command(bin, cfg)
	cmd.Stderr = logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill() })
	waitListening(t, fmt.Sprintf("127.0.0.1:%d", port))
	// The AdminServer starts after the client port: wait for its line
	// ("AdminServer started", or not started), so SIGINT never comes first.
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "AdminServer") }, 10*time.Second,
		5*time.Millisecond, "no AdminServer line in the log:\n%s", logs)
	check()
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, cmd.Wait())
	return logs.String()
}

// TestAdminServerStartsFromZooCfg: a zoo.cfg turns the AdminServer on.
func TestAdminServerStartsFromZooCfg(t *testing.T) {
	adminPort := freePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/commands/ruok", adminPort)
	logs := runWithAdmin(t, adminPort, func() {
		var body []byte
		require.Eventually(t, func() bool {
			resp, err := http.Get(url)
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			body, _ = io.ReadAll(resp.Body)
			return resp.StatusCode == http.StatusOK
		}, 10*time.Second, 20*time.Millisecond)
		require.Equal(t, "{\n  \"command\" : \"ruok\",\n  \"error\" : null\n}", string(body))
	})
	require.Contains(t, logs, "AdminServer started")
}

// TestAdminPortInUse: ZooKeeper's quorum peers run on without their
// AdminServer when its port is taken; zkserver does too, and says so in
// one WARN line naming the address.
func TestAdminPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	taken := ln.Addr().(*net.TCPAddr).Port
	logs := runWithAdmin(t, taken, func() {})
	require.Contains(t, logs, "level=WARN msg=\"AdminServer not started; the server runs without it")
	require.Contains(t, logs, fmt.Sprintf("addr=127.0.0.1:%d", taken))
	require.Contains(t, logs, "address already in use")
}
