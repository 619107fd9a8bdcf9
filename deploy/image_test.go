package deploy_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestImageBuildsAndServes builds the repository's Dockerfile and runs
// the image with the official image's variables: the server must answer
// ruok on the published client port and the HEALTHCHECK must turn
// healthy. It needs a Docker daemon and the base images (golang,
// distroless); CI has neither, so it usually skips.
func TestImageBuildsAndServes(t *testing.T) {
	docker, err := exec.LookPath("docker")
	if err != nil {
		t.Skip("docker is not installed: the image is not built")
	}
	if out, err := exec.Command(docker, "info").CombinedOutput(); err != nil {
		t.Skipf("no Docker daemon answers (%s): the image is not built", lastLines(out, 1))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tag := fmt.Sprintf("zkraft-test:%d", time.Now().UnixNano())
	out, err := exec.CommandContext(ctx, docker, "build", "-t", tag, "..").CombinedOutput()
	if err != nil && (strings.Contains(string(out), "failed to resolve source metadata") || strings.Contains(string(out), "pull access denied") ||
		strings.Contains(string(out), "dial tcp")) {
		t.Skipf("the base images cannot be pulled here: %s", lastLines(out, 3))
	}
	require.NoError(t, err, "docker build:\n%s", out)
	t.Cleanup(func() { exec.Command(docker, "rmi", "-f", tag).Run() })

	name := strings.ReplaceAll(tag, ":", "-")
	out, err = exec.Command(docker, "run", "-d", "--name", name, "-p", "127.0.0.1::2181",
		"-e", "ZOO_4LW_COMMANDS_WHITELIST=ruok,srvr", tag).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { exec.Command(docker, "rm", "-f", name).Run() })
	out, err = exec.Command(docker, "port", name, "2181/tcp").CombinedOutput()
	require.NoError(t, err, "%s", out)
	addr := strings.TrimSpace(firstLine(out))

	deadline := time.Now().Add(60 * time.Second)
	for {
		status, _ := exec.Command(docker, "inspect", "-f", "{{.State.Health.Status}}", name).Output()
		if strings.TrimSpace(string(status)) == "healthy" {
			break
		}
		if time.Now().After(deadline) {
			logs, _ := exec.Command(docker, "logs", name).CombinedOutput()
			t.Fatalf("not healthy within 60s (%s); logs:\n%s", status, logs)
		}
		time.Sleep(500 * time.Millisecond) // poll interval of the health status
	}
	require.Equal(t, "imok", fourLetter(t, addr, "ruok"))
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
