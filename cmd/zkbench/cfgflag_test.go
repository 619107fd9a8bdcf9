package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkraft/zkraft/server"
)

func TestCfgFlagParse(t *testing.T) {
	var stderr bytes.Buffer
	o, err := parseFlags([]string{"-compare", "zkserver3;zookeeper3", "-cfg", "localSessionsEnabled=true",
		"-cfg", " snapCount = 5000 ", "-cfg", "localSessionsEnabled=false", "-cfg", "a=b=c"}, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	want := map[string]string{"localSessionsEnabled": "false", "snapCount": "5000", "a": "b=c"}
	got := o.cfg.config()
	if len(got) != len(want) {
		t.Errorf("config %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("config[%q] = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if s := o.cfg.String(); s != "localSessionsEnabled=true snapCount=5000 localSessionsEnabled=false a=b=c" {
		t.Errorf("String() = %q", s)
	}
	zk := o.cfg.zooKeeperExtra()
	if zk["maxClientCnxns"] != "0" || zk["localSessionsEnabled"] != "false" || zk["snapCount"] != "5000" {
		t.Errorf("ZooKeeper ExtraConfig %v, want maxClientCnxns=0 and the -cfg lines", zk)
	}
	var none cfgFlag
	if none.config() != nil || string(none.zoocfg([]byte("a=1\n"))) != "a=1\n" {
		t.Error("without -cfg the zoo.cfg must stay as it is")
	}

	for _, bad := range []string{"novalue", "=x", "k=", "#k=v", "k=v\nl=w"} {
		stderr.Reset()
		code := realMain(context.Background(), []string{"-cfg", bad}, &bytes.Buffer{}, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "-cfg") {
			t.Errorf("-cfg %q: exit %d, stderr %q; want 2 and the flag named", bad, code, stderr.String())
		}
	}
}

func TestCfgFlagZooCfg(t *testing.T) {
	var c cfgFlag
	for _, s := range []string{"localSessionsEnabled=true", "maxClientCnxns=60", "localSessionsUpgradingEnabled=false"} {
		if err := c.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	servers := map[int64]string{1: "127.0.0.1:1:2", 2: "127.0.0.1:3:4", 3: "127.0.0.1:5:6"}
	cfg := string(c.zoocfg(zkserverMemberConfig(2181, "/d/1", servers, false, false)))
	for _, want := range []string{"clientPort=2181\n", "dataDir=/d/1\n", "server.3=127.0.0.1:5:6\n",
		"maxClientCnxns=60\n", "localSessionsEnabled=true\n", "localSessionsUpgradingEnabled=false\n"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("zoo.cfg lacks %q:\n%s", want, cfg)
		}
	}
	if strings.Contains(cfg, "maxClientCnxns=0") {
		t.Errorf("-cfg maxClientCnxns=60 must replace zkbench's maxClientCnxns=0:\n%s", cfg)
	}
	// zkserver parses it as it would the file.
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "myid"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	parsed, err := server.ParseConfig(strings.NewReader(string(c.zoocfg(zkserverMemberConfig(2181, data, servers, false, false)))), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !parsed.LocalSessionsEnabled || parsed.LocalSessionsUpgradingEnabled || parsed.MaxClientCnxns != 60 {
		t.Errorf("parsed: localSessionsEnabled %v, upgrading %v, maxClientCnxns %d; want true, false, 60",
			parsed.LocalSessionsEnabled, parsed.LocalSessionsUpgradingEnabled, parsed.MaxClientCnxns)
	}
}

func TestCfgFlagInProcess(t *testing.T) {
	var c cfgFlag
	if err := c.Set("localSessionsEnabled=true"); err != nil {
		t.Fatal(err)
	}
	base := server.DefaultConfig()
	base.ClientPort, base.MaxClientCnxns, base.DataDir = 0, 0, "/d/1"
	got, err := c.apply(base)
	if err != nil {
		t.Fatal(err)
	}
	if !got.LocalSessionsEnabled {
		t.Error("localSessionsEnabled not applied")
	}
	if got.ClientPort != 0 || got.MaxClientCnxns != 0 || got.DataDir != "/d/1" || got.TickTime != base.TickTime ||
		got.AdminEnableServer != base.AdminEnableServer || len(got.FourLetterWhitelist) != 1 || got.FourLetterWhitelist[0] != "*" {
		t.Errorf("fields -cfg did not name changed: %+v", got)
	}
	var unknown cfgFlag
	unknown.Set("noSuchKey=1")
	if _, err := unknown.apply(base); err == nil || !strings.Contains(err.Error(), "noSuchKey") {
		t.Errorf("unknown key: %v, want an error naming it", err)
	}
}

// TestCfgReachesZkserverTargets starts zkserver3 with -cfg and reads the
// zoo.cfg every member was started with.
func TestCfgReachesZkserverTargets(t *testing.T) {
	bin := buildZkserver(t)
	o := testOptions(t, "set")
	o.zkserver = bin
	o.cfg.Set("localSessionsEnabled=true")
	tg := startTestTarget(t, "zkserver3", o)
	z, ok := tg.members.(*zkservers)
	if !ok {
		t.Fatalf("members %T, want *zkservers", tg.members)
	}
	for _, p := range z.procs {
		cfg, err := os.ReadFile(filepath.Join(filepath.Dir(p.logPath), "zoo.cfg"))
		if err != nil {
			t.Fatal(err)
		}
		if configValue(cfg, "localSessionsEnabled") != "true" {
			t.Errorf("%s zoo.cfg lacks localSessionsEnabled=true:\n%s", p.addr, cfg)
		}
	}
	benchBriefly(t, tg, "create")
	stopAndCheckGone(t, tg)
}
