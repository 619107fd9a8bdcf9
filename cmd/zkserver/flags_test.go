package main

import (
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// -port and -data-dir give a durable server without a zoo.cfg: a znode
// written before a SIGTERM is there after a restart with the same flags.
func TestPortAndDataDirFlags(t *testing.T) {
	bin := buildServer(t)
	port, dir := freePort(t), t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "-port", fmt.Sprint(port), "-data-dir", dir)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		waitListening(t, addr)
		return cmd
	}
	stop := func(cmd *exec.Cmd) {
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		require.NoError(t, cmd.Wait())
	}
	connect := func() *zk.Conn {
		c, _, err := zk.Connect([]string{addr}, 5*time.Second, zk.WithLogInfo(false))
		require.NoError(t, err)
		return c
	}

	cmd := start()
	c := connect()
	_, err := c.Create("/kept", []byte("across restarts"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	c.Close()
	stop(cmd)

	cmd = start()
	c = connect()
	data, _, err := c.Get("/kept")
	require.NoError(t, err)
	require.Equal(t, "across restarts", string(data))
	c.Close()
	stop(cmd)
}

func TestFlagErrorsAndHelp(t *testing.T) {
	bin := buildServer(t)
	out, err := exec.Command(bin, "-port", "70000").CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "-port 70000: not a port")

	out, err = exec.Command(bin, "-h").CombinedOutput()
	require.NoError(t, err)
	for _, want := range []string{"127.0.0.1:2181", "in-memory", "clientPort", "SIGTERM", "-data-dir dir"} {
		require.Contains(t, string(out), want)
	}
}
