package main

import (
	"crypto/x509/pkix"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/testpki"
)

// TestContainerRunsAnotherCommand: as the official entrypoint's exec "$@",
// a command other than zkserver runs once the files are written.
func TestContainerRunsAnotherCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /bin/sh on Windows")
	}
	bin, dir := buildServer(t), t.TempDir()
	cmd := exec.Command(bin, "container", "/bin/sh", "-c", "cat $ZOO_CONF_DIR/zoo.cfg $ZOO_DATA_DIR/myid")
	cmd.Env = append(os.Environ(), "ZOO_CONF_DIR="+filepath.Join(dir, "conf"), "ZOO_DATA_DIR="+filepath.Join(dir, "data"),
		"ZOO_DATA_LOG_DIR="+filepath.Join(dir, "log"), "ZOO_MY_ID=4", "ZOO_SERVERS=server.4=h:1:2;3")
	out, err := cmd.Output()
	require.NoError(t, err)
	require.Contains(t, string(out), "server.4=h:1:2;3\n")
	require.True(t, strings.HasSuffix(string(out), "\n4\n"), "%s", out)
}

// TestHealthcheckWithoutAdminServer: with admin.enableServer=false the
// check asks srvr; a stopped server fails it.
func TestHealthcheckWithoutAdminServer(t *testing.T) {
	bin := buildServer(t)
	port := freePort(t)
	cfg := writeCfg(t, fmt.Sprintf("tickTime=2000\nclientPort=%d\nclientPortAddress=127.0.0.1\n", port))
	p := &proc{cfg: cfg, addr: fmt.Sprintf("127.0.0.1:%d", port)}
	p.start(t, bin)
	require.NoError(t, p.waitUp())
	out, err := exec.Command(bin, "healthcheck", cfg).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "Mode: standalone\n", string(out))

	p.kill(t)
	out, err = exec.Command(bin, "healthcheck", cfg).CombinedOutput()
	require.Error(t, err, "a stopped server is not healthy: %s", out)
}

// TestHealthcheckOverHTTPS: with admin.forceHttps and admin.needClientAuth
// the check reaches /ready over HTTPS, trusting the ssl.quorum.* trust
// store and presenting the key store's certificate; it fails once the
// server is gone.
func TestHealthcheckOverHTTPS(t *testing.T) {
	bin := buildServer(t)
	pki := testpki.New(t, "health-ca")
	ks, ts := pki.WritePEM(t, pki.Issue(t, pkix.Name{CommonName: "zk-0"}))
	port, adminPort := freePort(t), freePort(t)
	cfg := writeCfg(t, fmt.Sprintf("tickTime=2000\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"admin.serverAddress=127.0.0.1\nadmin.serverPort=%d\nadmin.forceHttps=true\nadmin.needClientAuth=true\n"+
		"ssl.quorum.keyStore.location=%s\nssl.quorum.trustStore.location=%s\n", port, adminPort, ks, ts))
	p := &proc{cfg: cfg, addr: fmt.Sprintf("127.0.0.1:%d", port)}
	p.start(t, bin)
	require.NoError(t, p.waitUp())
	p.waitLog(t, regexp.MustCompile(`msg="AdminServer started" .*scheme=https$`), 1, 10*time.Second)
	out, err := exec.Command(bin, "healthcheck", cfg).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "ready")

	p.kill(t)
	out, err = exec.Command(bin, "healthcheck", cfg).CombinedOutput()
	require.Error(t, err, "a stopped server is not healthy: %s", out)
}
