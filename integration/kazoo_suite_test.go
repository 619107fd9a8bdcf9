package integration

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// kazooSASLTests is kazoo's own test module for SASL, as the Debian
// package python3-kazoo installs it.
const kazooSASLTests = "/usr/lib/python3/dist-packages/kazoo/tests/test_sasl.py"

// freePortBlock returns the first of n consecutive loopback ports that are
// free now, for a harness that numbers its ports from an offset.
func freePortBlock(t *testing.T, n int) int {
	t.Helper()
	for attempt := 0; attempt < 20; attempt++ {
		base := FreePort(t)
		if base+n > 65535 {
			continue
		}
		ok := true
		for p := base; p < base+n && ok; p++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				ok = false
				continue
			}
			ln.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no block of free ports")
	return 0
}

// kazoo's unmodified test_sasl.py passes against a three-server zkserver
// ensemble that its own harness (KazooTestHarness) starts: the harness
// runs `java ... QuorumPeerMain zoo.cfg` with the JAAS file it writes,
// and testdata/java_shim.sh, first on PATH, runs zkserver instead with
// those -D flags as SERVER_JVMFLAGS. Its two GSSAPI tests skip themselves:
// they need Python Kerberos bindings and kazoo's own KDC setup (zkraft's
// GSSAPI is checked with the Java client in kerberos_test.go).
func TestKazooOwnSASLTests(t *testing.T) {
	py := kazooPython(t)
	if _, err := os.Stat(kazooSASLTests); err != nil {
		t.Skipf("%s not found (apt-get install -y python3-kazoo)", kazooSASLTests)
	}
	if exec.Command(py, "-c", "import pytest").Run() != nil {
		t.Skip("pytest not found (apt-get install -y python3-pytest)")
	}
	bin := filepath.Join(t.TempDir(), "zkserver")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/zkserver").CombinedOutput()
	require.NoError(t, err, "%s", out)
	shimDir := t.TempDir()
	shim, err := filepath.Abs(filepath.Join("testdata", "java_shim.sh"))
	require.NoError(t, err)
	require.NoError(t, os.Symlink(shim, filepath.Join(shimDir, "java")))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", kazooSASLTests)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(),
		"PATH="+shimDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ZKRAFT_ZKSERVER="+bin,
		"ZOOKEEPER_CLASSPATH="+shimDir, // the harness needs one; the shim ignores it
		"ZOOKEEPER_VERSION=3.8.0",
		"ZOOKEEPER_CLUSTER_SIZE=3",
		fmt.Sprintf("ZOOKEEPER_PORT_OFFSET=%d", freePortBlock(t, 30)),
	)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "kazoo's test_sasl.py:\n%s", out)
	summary := strings.TrimSpace(string(out))
	t.Logf("kazoo test_sasl.py: %s", summary[strings.LastIndex(summary, "\n")+1:])
	require.Regexp(t, `4 passed`, summary, "the two digest test classes, two tests each")
	require.NotRegexp(t, `failed|error`, summary)
}
