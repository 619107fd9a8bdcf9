package main

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"
)

// TestOneShotCommandsSideBySide compares real one-shot runs of zkCli.sh
// with zkcli's, byte for byte, for commands that act on the command's own
// session (whoami, addWatch, removewatches) and for config -c.
func TestOneShotCommandsSideBySide(t *testing.T) {
	zkAddr := needZkCli(t)
	for _, args := range [][]string{
		{"whoami"},
		{"addWatch", "/oneshot-w"},
		{"removewatches", "/oneshot-w"},
		{"config", "-c"},
	} {
		javaOut, javaErr, javaCode := zkCliOneShot(t, zkAddr, args)
		out, errOut, code := zkcliSplit(t, zkAddr, args...)
		if out != javaOut || errOut != javaErr || code != javaCode {
			t.Errorf("%v:\nzkCli.sh: exit %d, stdout:\n%s\nstderr:\n%s\nzkcli: exit %d, stdout:\n%s\nstderr:\n%s",
				args, javaCode, javaOut, javaErr, code, out, errOut)
		}
	}
}

// zkCliOneShot runs "zkCli.sh -server addr args..." and returns its
// standard output and error without the JVM's and the connection's noise,
// and its exit status.
func zkCliOneShot(t *testing.T, addr string, args []string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, zkCliSh, append([]string{"-server", addr}, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("zkCli.sh %v: %v", args, err)
	}
	return oneShotOutput(o.String()), dropJavaNoise(e.String()), code
}
