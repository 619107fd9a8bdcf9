package deploy_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// zkserverBin builds cmd/zkserver once per test binary.
func zkserverBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zkraft-deploy-test")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "zkserver")
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/zkserver").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// proc is one `zkserver container` process.
type proc struct {
	name    string
	env     map[string]string
	client  string // 127.0.0.1:port
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{}
}

// environ is the process environment: ours without any image variable,
// plus p.env.
func (p *proc) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ZOO_") && !strings.HasPrefix(kv, "ZKRAFT_") && !strings.HasPrefix(kv, "HOSTNAME=") {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(p.env))
	for k := range p.env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+p.env[k])
	}
	return out
}

// start runs `zkserver container`; its log is printed if the test fails.
func (p *proc) start(t *testing.T) {
	t.Helper()
	if p.logPath == "" {
		p.logPath = filepath.Join(t.TempDir(), p.name+".log")
	}
	logFile, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	require.NoError(t, err)
	cmd, exited := exec.Command(zkserverBin(t), "container"), make(chan struct{})
	cmd.Env, cmd.Stdout, cmd.Stderr = p.environ(), logFile, logFile
	require.NoError(t, cmd.Start())
	go func() { cmd.Wait(); logFile.Close(); close(exited) }()
	p.cmd, p.exited = cmd, exited
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			out, _ := os.ReadFile(p.logPath)
			t.Logf("log of %s (%s):\n%s", p.name, cmd.ProcessState, out)
		}
	})
}

// kill stops the process with SIGKILL and waits for it.
func (p *proc) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	<-p.exited
}

// waitLog waits until the process's log has text (counting from the
// count-th occurrence, for a restarted process), or fails when it exits.
func (p *proc) waitLog(t *testing.T, text string, count int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		out, _ := os.ReadFile(p.logPath)
		if strings.Count(string(out), text) >= count {
			return
		}
		select {
		case <-p.exited:
			t.Fatalf("%s exited (%s) before logging %q", p.name, p.cmd.ProcessState, text)
		case <-time.After(20 * time.Millisecond): // poll interval of the log check
		}
	}
	t.Fatalf("%s did not log %q within %v", p.name, text, within)
}

// mode is srvr's Mode line ("" while the server does not answer or serve).
func (p *proc) mode() string {
	stats, _ := zk.FLWSrvr([]string{p.client}, time.Second)
	if len(stats) == 0 || stats[0].Error != nil {
		return ""
	}
	return stats[0].Mode.String()
}

// waitModes waits until every process reports a mode and exactly one
// leads; it returns the leader's index.
func waitModes(t *testing.T, procs []*proc, within time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		leader, followers := -1, 0
		for i, p := range procs {
			switch p.mode() {
			case "leader":
				leader = i
			case "follower":
				followers++
			}
		}
		if leader >= 0 && followers == len(procs)-1 {
			return leader
		}
		time.Sleep(50 * time.Millisecond) // poll interval of the condition above
	}
	t.Fatalf("no leader with %d followers within %v", len(procs)-1, within)
	return -1
}

// connect opens a session on addrs and closes it at the end of the test.
func connect(t *testing.T, addrs ...string) *zk.Conn {
	t.Helper()
	c, _, err := zk.Connect(addrs, 10*time.Second, zk.WithLogger(quiet{}))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// fourLetter sends a four-letter word and returns the whole answer.
func fourLetter(t *testing.T, addr, cmd string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	_, err = c.Write([]byte(cmd))
	require.NoError(t, err)
	out, err := io.ReadAll(c)
	require.NoError(t, err)
	return string(out)
}
