package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
)

// TestSystemdUnitVerifies runs systemd-analyze over deploy/systemd's unit,
// with ExecStart pointed at a freshly built zkserver (verify insists that
// the binary exists): no warnings, and an offline security exposure of
// at most 2.0 ("OK" starts below 5.0).
func TestSystemdUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian package systemd): the unit is not verified")
	}
	raw, err := os.ReadFile("systemd/zkserver.service")
	require.NoError(t, err)
	require.Contains(t, string(raw), "ExecStart=/usr/local/bin/zkserver /etc/zkraft/zoo.cfg")
	unit := filepath.Join(t.TempDir(), "zkserver.service")
	body := strings.Replace(string(raw), "ExecStart=/usr/local/bin/zkserver", "ExecStart="+zkserverBin(t), 1)
	require.NoError(t, os.WriteFile(unit, []byte(body), 0o644))

	out, err := exec.Command(analyze, "verify", unit).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Empty(t, strings.TrimSpace(string(out)), "systemd-analyze verify warns")

	out, err = exec.Command(analyze, "security", "--offline=true", "--threshold=20", unit).CombinedOutput()
	if err != nil && strings.Contains(string(out), "unrecognized option") {
		t.Skipf("this systemd-analyze has no offline security check: %s", out)
	}
	require.NoError(t, err, "exposure above 2.0:\n%s", out)
}

// TestSystemdSampleConfigParses reads deploy/systemd/zoo.cfg with
// zkserver's parser, its dataDir moved to a temporary directory: every
// key is one zkraft uses.
func TestSystemdSampleConfigParses(t *testing.T) {
	raw, err := os.ReadFile("systemd/zoo.cfg")
	require.NoError(t, err)
	dir := t.TempDir()
	body := strings.Replace(string(raw), "dataDir=/var/lib/zkraft", "dataDir="+dir, 1)
	path := filepath.Join(dir, "zoo.cfg")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	cfg, err := server.ParseConfigFile(path)
	require.NoError(t, err)
	require.Empty(t, cfg.IgnoredKeys)
	require.Equal(t, dir, cfg.DataDir)
	require.True(t, cfg.AdminEnableServer)
	require.True(t, cfg.Metrics.Prometheus())
}
