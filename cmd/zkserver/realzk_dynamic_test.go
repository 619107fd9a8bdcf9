package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/internal/realzk"
)

// dynamicPair is a zoo.cfg that names a dynamicConfigFile, and that file,
// as ZooKeeper left them.
type dynamicPair struct {
	cfg     string // zoo.cfg's contents
	dynPath string // the dynamicConfigFile it names
	dyn     string // that file's contents
}

// TestDynamicConfigFileWrittenByZooKeeper lets Apache ZooKeeper 3.8 write
// its own dynamic configuration (a quorum of one with reconfig on moves
// its server.1 line into zoo.cfg.dynamic.<version> on its first start,
// and a reconfig writes a newer file and points zoo.cfg at it), then
// starts zkserver from each zoo.cfg it left: zkserver leads its quorum of
// one, as ZooKeeper did, and serves the same /zookeeper/config.
func TestDynamicConfigFileWrittenByZooKeeper(t *testing.T) {
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	bin := buildServer(t)
	dir := t.TempDir()
	zks, err := realzk.StartQuorumOfOne(dir, realzk.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { zks.Stop() })
	cfgPath := filepath.Join(dir, "zoo.cfg")
	first := waitDynamicPair(t, cfgPath, "")
	logPair(t, "after its first start", first)
	mode, err := realzk.Mode(zks.Addr(), 2*time.Second)
	require.NoError(t, err)
	require.Equal(t, "leader", mode, "ZooKeeper leads a quorum of one with standaloneEnabled=false")

	conn := connectQuiet(t, zks.Addr())
	require.NoError(t, conn.AddAuth("digest", []byte("super:test")))
	zkFirst := getString(t, conn, "/zookeeper/config")
	_, err = conn.Create("/from-zookeeper", []byte("x"), 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	// An observer needs no ack, so ZooKeeper commits this without server 2.
	joining := fmt.Sprintf("server.2=127.0.0.1:%d:%d:observer;127.0.0.1:%d", freePort(t), freePort(t), freePort(t))
	_, err = conn.IncrementalReconfig([]string{joining}, nil, -1)
	require.NoError(t, err)
	zkSecond := getString(t, conn, "/zookeeper/config")
	second := waitDynamicPair(t, cfgPath, first.dynPath)
	logPair(t, "after reconfig -add "+joining, second)
	t.Logf("ZooKeeper's /zookeeper/config: %q, then %q", zkFirst, zkSecond)
	conn.Close()
	require.NoError(t, zks.Stop())

	// The first pair, with a fresh dataDir: zkraft refuses ZooKeeper's
	// data until it is imported.
	fresh := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(fresh, "myid"), []byte("1\n"), 0o644))
	firstCfg := filepath.Join(t.TempDir(), "zoo.cfg")
	require.NoError(t, os.WriteFile(firstCfg, []byte(withDataDir(first.cfg, fresh)), 0o644))
	config, imported := servedConfig(t, bin, firstCfg, zks.Addr())
	require.Equal(t, zkFirst, config)
	require.False(t, imported)

	// The second pair as ZooKeeper left it, after importing its data.
	out, err := exec.Command(bin, "import", filepath.Join(dir, "data"), "-to", cfgPath).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Logf("zkserver import: %s", out)
	config, imported = servedConfig(t, bin, cfgPath, zks.Addr())
	require.Equal(t, zkSecond, config)
	require.True(t, imported, "ZooKeeper's /from-zookeeper was imported")
}

// waitDynamicPair waits until the zoo.cfg at path names a
// dynamicConfigFile other than previous, and returns it with that file.
func waitDynamicPair(t *testing.T, path, previous string) dynamicPair {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		for line := range strings.Lines(string(b)) {
			dyn, ok := strings.CutPrefix(strings.TrimSpace(line), "dynamicConfigFile=")
			if !ok || dyn == previous {
				continue
			}
			d, err := os.ReadFile(dyn)
			require.NoError(t, err)
			return dynamicPair{cfg: string(b), dynPath: dyn, dyn: string(d)}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s names no new dynamicConfigFile within 20s:\n%s", path, b)
		}
		time.Sleep(20 * time.Millisecond) // poll interval of the condition above
	}
}

// logPair writes both files into the test's output, exactly.
func logPair(t *testing.T, when string, p dynamicPair) {
	t.Logf("ZooKeeper %s: zoo.cfg:\n%s--- %s:\n%s\n---", when, p.cfg, filepath.Base(p.dynPath), p.dyn)
}

// withDataDir returns cfg with its dataDir line replaced by dir.
func withDataDir(cfg, dir string) string {
	var b strings.Builder
	for line := range strings.Lines(cfg) {
		if strings.HasPrefix(line, "dataDir=") {
			line = "dataDir=" + dir + "\n"
		}
		b.WriteString(line)
	}
	return b.String()
}

// servedConfig starts zkserver on cfg, waits until srvr on addr shows it
// leading (as ZooKeeper does a quorum of one), and returns
// /zookeeper/config and whether ZooKeeper's node /from-zookeeper is there
// (imported); the server is stopped again.
func servedConfig(t *testing.T, bin, cfg, addr string) (config string, imported bool) {
	t.Helper()
	p := &proc{cfg: cfg, addr: addr}
	p.start(t, bin)
	require.NoError(t, p.waitUp())
	defer p.kill(t)
	require.Eventually(t, func() bool { return p.mode() == "leader" }, 20*time.Second, 20*time.Millisecond,
		"zkserver leads its quorum of one")
	conn := connectQuiet(t, addr)
	defer conn.Close()
	imported, _, err := conn.Exists("/from-zookeeper")
	require.NoError(t, err)
	return getString(t, conn, "/zookeeper/config"), imported
}

// connectQuiet opens a go-zookeeper session without its logging.
func connectQuiet(t *testing.T, addr string) *zk.Conn {
	t.Helper()
	conn, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(nopLogger{}))
	require.NoError(t, err)
	return conn
}

// getString reads a node's data.
func getString(t *testing.T, conn *zk.Conn, path string) string {
	t.Helper()
	b, _, err := conn.Get(path)
	require.NoError(t, err, path)
	return string(b)
}
