package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
)

// buildServer compiles zkserver once per test binary.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "zkserver")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

func freePort(t testing.TB) int { return integration.FreePort(t) }

// writeCfg writes a zoo.cfg with body, plus admin.enableServer=false
// unless body sets an admin key itself: a zoo.cfg turns the AdminServer
// on, and tests must not all take port 8080.
func writeCfg(t *testing.T, body string) string {
	t.Helper()
	if !strings.Contains(body, "admin.") {
		body += "\nadmin.enableServer=false\n"
	}
	p := filepath.Join(t.TempDir(), "zoo.cfg")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func TestBadConfigFailsWithClearMessage(t *testing.T) {
	bin := buildServer(t)
	cfg := writeCfg(t, "tickTime=abc\nclientPort=2181\n")
	out, err := exec.Command(bin, cfg).CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), `tickTime: "abc" is not an integer`)

	out, err = exec.Command(bin, "a.cfg", "b.cfg").CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "usage: zkserver [-version] [-port port] [-data-dir dir] [-log-level level] [-pprof host:port] [-jaas file] [zoo.cfg]")
}

func TestServesFromZooCfgAndStopsOnSignals(t *testing.T) {
	bin := buildServer(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			port := freePort(t)
			cfg := writeCfg(t, fmt.Sprintf("tickTime=2000\nclientPort=%d\nclientPortAddress=127.0.0.1\nautopurge.purgeInterval=1\n", port))
			var logs bytes.Buffer
			cmd := exec.Command(bin, cfg)
			cmd.Stderr = &logs
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { cmd.Process.Kill() })

			addr := fmt.Sprintf("127.0.0.1:%d", port)
			waitListening(t, addr)
			c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
			require.NoError(t, err)
			defer c.Close()
			_, err = c.Create("/hello", []byte("world"), 0, zk.WorldACL(zk.PermAll))
			require.NoError(t, err)

			require.NoError(t, cmd.Process.Signal(sig))
			require.NoError(t, cmd.Wait(), "clean exit on %v; logs:\n%s", sig, logs.String())
			require.Contains(t, logs.String(), "shutting down")
			require.True(t, strings.Contains(logs.String(), "autopurge.purgeInterval: ignored: not supported by zkraft"), "ignored keys are warned about")
			require.NotContains(t, logs.String(), "level=ERROR", "a clean stop logs no error")
		})
	}
}

// waitListening retries a TCP dial until the server accepts or 10s pass.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		nc, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			nc.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not listen on %s: %v", addr, err)
		}
		time.Sleep(5 * time.Millisecond) // retry interval of the condition above
	}
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...interface{}) {}

// TestSurvivesSIGKILL writes through a zkserver with a dataDir, kills it
// with SIGKILL and starts it again: every acknowledged write is there.
func TestSurvivesSIGKILL(t *testing.T) {
	bin := buildServer(t)
	port := freePort(t)
	dataDir := t.TempDir()
	cfg := writeCfg(t, fmt.Sprintf("tickTime=2000\nclientPort=%d\nclientPortAddress=127.0.0.1\ndataDir=%s\n", port, dataDir))
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, cfg)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		waitListening(t, addr)
		return cmd
	}
	first := start()
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	const n = 200
	for i := 0; i < n; i++ {
		_, err := c.Create(fmt.Sprintf("/k%03d", i), []byte{byte(i)}, 0, zk.WorldACL(zk.PermAll))
		require.NoError(t, err)
	}
	c.Close()
	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	first.Wait()

	start()
	c, _, err = zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	defer c.Close()
	kids, _, err := c.Children("/")
	require.NoError(t, err)
	found := 0
	for _, k := range kids {
		if strings.HasPrefix(k, "k") {
			found++
		}
	}
	require.Equal(t, n, found, "every acknowledged create survives SIGKILL")
	_, err = os.Stat(filepath.Join(dataDir, "zkraft-wal"))
	require.NoError(t, err, "the Raft log (a WAL, forceSync being on) lives in dataDir")
}

func TestLogLevel(t *testing.T) {
	for _, tc := range []struct {
		flag, env string
		want      slog.Level
	}{
		{"", "", slog.LevelInfo}, {"debug", "", slog.LevelDebug}, {"", "warn", slog.LevelWarn},
		{"ERROR", "debug", slog.LevelError}, {"warning", "", slog.LevelWarn},
	} {
		got, err := logLevel(tc.flag, tc.env)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "flag %q env %q", tc.flag, tc.env)
	}
	_, err := logLevel("", "loud")
	require.EqualError(t, err, `ZKRAFT_LOG_LEVEL: "loud" is not a log level (debug, info, warn or error)`)
	_, err = logLevel("x", "")
	require.ErrorContains(t, err, `-log-level: "x"`)
}

func TestLogLevelFlagQuietsInfo(t *testing.T) {
	bin := buildServer(t)
	port := freePort(t)
	cfg := writeCfg(t, fmt.Sprintf("clientPort=%d\nclientPortAddress=127.0.0.1\n", port))
	var logs bytes.Buffer
	cmd := exec.Command(bin, "-log-level", "warn", cfg)
	cmd.Stderr = &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill() })
	waitListening(t, fmt.Sprintf("127.0.0.1:%d", port))
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, cmd.Wait())
	require.Empty(t, logs.String(), "nothing below warn")
}
