package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zkraft/zkraft/internal/realzk"
)

func TestBuiltinTargetPlacement(t *testing.T) {
	for _, c := range []struct {
		spec string
		kind string
		sh   shape
		pl   placement
		ok   bool
	}{
		{"zkserver3slow", "zkserver", shape{3, 0}, placeSlowLeader, true},
		{"zkserver3tmpfs", "zkserver", shape{3, 0}, placeTmpfs, true},
		{"zookeeper3slow", "zookeeper", shape{3, 0}, placeSlowLeader, true},
		{"zookeeper5tmpfs", "zookeeper", shape{5, 0}, placeTmpfs, true},
		{"zkserver3o2slow", "zkserver", shape{3, 2}, placeSlowLeader, true},
		{"zkserver3", "zkserver", shape{3, 0}, placeDefault, true},
		{"zkserverslow", "", shape{}, placeDefault, false},
		{"zkserver3fast", "", shape{}, placeDefault, false},
		{"zkserver4slow", "", shape{}, placeDefault, false},
	} {
		kind, sh, pl, ok := builtinTarget(c.spec)
		if ok != c.ok || ok && (kind != c.kind || sh != c.sh || pl != c.pl) {
			t.Errorf("%s: %s %v %v %v, want %s %v %v %v", c.spec, kind, sh, pl, ok, c.kind, c.sh, c.pl, c.ok)
		}
		if ok != builtins[c.spec] {
			t.Errorf("%s: builtins says %v, want %v", c.spec, builtins[c.spec], ok)
		}
		if err := checkSpec(c.spec); (err == nil) != ok {
			t.Errorf("checkSpec(%s) = %v", c.spec, err)
		}
		if ok && kind == "zkserver" && zkserverName(sh)+placementSuffix(pl) != c.spec {
			t.Errorf("%s: the target would be named %s", c.spec, zkserverName(sh)+placementSuffix(pl))
		}
	}
}

func TestSplitCompare(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"zkserver,zookeeper", []string{"zkserver", "zookeeper"}},
		{"zkserver3slow;zkserver3tmpfs;zookeeper3slow", []string{"zkserver3slow", "zkserver3tmpfs", "zookeeper3slow"}},
		{" a:1,b:2 ; zkraft3 ", []string{"a:1,b:2", "zkraft3"}},
		{"a,b,c,d", []string{"a", "b", "c", "d"}},
		{"zkserver", nil},
		{"a;;b", nil},
		{"a,b,c,d,e", nil},
	} {
		got, err := splitCompare(c.in)
		if c.want == nil {
			if err == nil {
				t.Errorf("splitCompare(%q) = %q, want an error", c.in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("splitCompare(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestPlaceMembers(t *testing.T) {
	slow := placeMembers(placeSlowLeader, 3, 1, "/disk", "/shm")
	if want := []string{"/shm/1/data", "/disk/2/data", "/shm/3/data"}; !slices.Equal(slow, want) {
		t.Errorf("slow leader 2 of 3: %q, want %q", slow, want)
	}
	obs := placeMembers(placeSlowLeader, 5, 2, "/disk", "/shm")
	if want := []string{"/shm/1/data", "/shm/2/data", "/disk/3/data", "/shm/4/data", "/shm/5/data"}; !slices.Equal(obs, want) {
		t.Errorf("slow leader 3 of 3+2: %q, want %q (observers on tmpfs too)", obs, want)
	}
	if all := placeMembers(placeTmpfs, 3, 0, "/disk", "/shm"); !slices.Equal(all, []string{"/shm/1/data", "/shm/2/data", "/shm/3/data"}) {
		t.Errorf("tmpfs: %q", all)
	}
	// placeDefault names where the members start: zkservers.start and
	// realzk both keep member N's data in DIR/N/data.
	if def := placeMembers(placeDefault, 2, -1, "/d", ""); !slices.Equal(def, []string{"/d/1/data", "/d/2/data"}) {
		t.Errorf("default: %q", def)
	}
}

func TestSetConfig(t *testing.T) {
	cfg := []byte("clientPort=2181\ndataDir=/disk/1/data\nforceSync=yes\nserver.1=127.0.0.1:1:2\n")
	got := string(setConfig(cfg, map[string]string{"dataDir": "/shm/1/data", "dataLogDir": "/shm/1/data"}))
	want := "clientPort=2181\ndataDir=/shm/1/data\nforceSync=yes\nserver.1=127.0.0.1:1:2\ndataLogDir=/shm/1/data\n"
	if got != want {
		t.Errorf("setConfig:\n%s\nwant\n%s", got, want)
	}
	if v := configValue([]byte(got), "dataDir"); v != "/shm/1/data" {
		t.Errorf("configValue(dataDir) = %q", v)
	}
	if v := configValue([]byte(got), "dataLogDirX"); v != "" {
		t.Errorf("configValue of a missing key = %q", v)
	}
	// A zkserver member's zoo.cfg, moved: only its dataDir changes.
	servers := map[int64]string{1: "127.0.0.1:1:2", 2: "127.0.0.1:3:4", 3: "127.0.0.1:5:6"}
	before := zkserverMemberConfig(2181, "/disk/2/data", servers, true, false)
	after := setConfig(before, map[string]string{"dataDir": "/shm/2/data"})
	if want := zkserverMemberConfig(2181, "/shm/2/data", servers, true, false); !bytes.Equal(after, want) {
		t.Errorf("moved zkserver zoo.cfg:\n%s\nwant\n%s", after, want)
	}
	// A duplicate key ends as one line with the new value.
	if got := string(setConfig([]byte("a=1\na=2\nb=3"), map[string]string{"a": "9"})); got != "a=9\nb=3\n" {
		t.Errorf("duplicate key: %q", got)
	}
}

func TestMoveTree(t *testing.T) {
	src := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(filepath.Join(src, "version-2"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"myid": "2\n", "version-2/log.1": "entries", "version-2/acceptedEpoch": "1"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "moved", "data")
	if err := moveTree(src, dst); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if b, err := os.ReadFile(filepath.Join(dst, name)); err != nil || string(b) != body {
			t.Errorf("%s: %q, %v; want %q", name, b, err, body)
		}
	}
	if _, err := os.Stat(src); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("source still there: %v", err)
	}
	if err := moveTree(dst, dst); err == nil {
		t.Error("moving onto an existing directory succeeded")
	}
}

func TestLeaderIndex(t *testing.T) {
	for _, c := range []struct {
		modes []string
		want  int
	}{
		{[]string{"follower", "leader", "follower"}, 1},
		{[]string{"follower", "follower", "leader", "observer"}, 2},
		{[]string{"follower", "looking", "follower"}, -1},
		{[]string{"leader", "leader"}, -1},
	} {
		if got := leaderIndex(c.modes); got != c.want {
			t.Errorf("leaderIndex(%v) = %d, want %d", c.modes, got, c.want)
		}
	}
}

func TestFSTypeName(t *testing.T) {
	if n := fsTypeName(0x01021994); n != "tmpfs" {
		t.Errorf("tmpfs magic: %s", n)
	}
	if n := fsTypeName(0xef53); n != "ext4" {
		t.Errorf("ext4 magic: %s", n)
	}
	if n := fsTypeName(0x1234); n != "filesystem 0x1234" {
		t.Errorf("unknown magic: %s", n)
	}
	if !memoryFS("tmpfs") || !memoryFS("ramfs") || memoryFS("ext4") {
		t.Error("memoryFS")
	}
}

// tmpfsAndDisk returns a tmpfs directory and a directory on a disk for
// the placement tests, or skips.
func tmpfsAndDisk(t *testing.T) (tmpfs, disk string) {
	t.Helper()
	disk = t.TempDir()
	diskFS, err1 := fsType(disk)
	shmFS, err2 := fsType(defaultTmpfsDir)
	if err1 != nil || err2 != nil || shmFS != "tmpfs" || memoryFS(diskFS) {
		t.Skipf("needs %s on tmpfs and the temp dir on a disk: %s %v, %s %v", defaultTmpfsDir, shmFS, err2, diskFS, err1)
	}
	return defaultTmpfsDir, disk
}

func TestPlacementDirs(t *testing.T) {
	tmpfs, disk := tmpfsAndDisk(t)
	o := &options{tmpfsDir: tmpfs, diskDir: disk}
	d, err := placementDirs(placeSlowLeader, o)
	if err != nil || d.tmpfsFS != "tmpfs" || d.disk != disk || memoryFS(d.diskFS) {
		t.Errorf("placementDirs = %+v, %v", d, err)
	}
	o.tmpfsDir = disk
	if _, err := placementDirs(placeTmpfs, o); err == nil || !strings.Contains(err.Error(), "not tmpfs") {
		t.Errorf("-tmpfsdir on a disk: %v, want an error", err)
	}
	o.tmpfsDir, o.diskDir = tmpfs, tmpfs
	if _, err := placementDirs(placeSlowLeader, o); err == nil || !strings.Contains(err.Error(), "not on a disk") {
		t.Errorf("-diskdir on tmpfs: %v, want an error", err)
	}
	if _, err := placementDirs(placeTmpfs, o); err != nil {
		t.Errorf("all on tmpfs needs no disk: %v", err)
	}
	o.tmpfsDir = filepath.Join(disk, "missing")
	if _, err := placementDirs(placeTmpfs, o); err == nil {
		t.Error("a missing -tmpfsdir was accepted")
	}
}

// checkPlacement checks where tg's servers keep their data, reading each
// one's zoo.cfg (the last argument of its command line): with slow the
// leader's on a disk and the others' on tmpfs, else all on tmpfs.
func checkPlacement(t *testing.T, tg *target, slow bool) {
	t.Helper()
	modes := askModes(tg.addrs, srvrMode)
	leader := leaderIndex(modes)
	if leader < 0 {
		t.Fatalf("modes %v: no leader", modes)
	}
	for i, pid := range tg.pids {
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			t.Skipf("cannot read the command line of %d: %v", pid, err)
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		cfg, err := os.ReadFile(args[len(args)-1])
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"dataDir", "dataLogDir"} {
			dir := configValue(cfg, key)
			if dir == "" {
				continue
			}
			typ, err := fsType(dir)
			if err != nil {
				t.Fatal(err)
			}
			onDisk := slow && i == leader
			if memoryFS(typ) == onDisk {
				t.Errorf("server %d (%s, %s): %s %s is on %s", i+1, tg.addrs[i], modes[i], key, dir, typ)
			}
		}
	}
	if tg.check != nil {
		if err := tg.check(); err != nil {
			t.Error(err)
		}
	}
}

func TestZkserverPlacedTargets(t *testing.T) {
	tmpfs, disk := tmpfsAndDisk(t)
	bin := buildZkserver(t)
	for _, spec := range []string{"zkserver3slow", "zkserver3tmpfs"} {
		t.Run(spec, func(t *testing.T) {
			o := testOptions(t, "set")
			o.zkserver, o.forceSync, o.tmpfsDir, o.diskDir = bin, true, tmpfs, disk
			tg := startTestTarget(t, spec, o)
			checkOwnProcesses(t, tg, 3)
			checkPlacement(t, tg, spec == "zkserver3slow")
			benchBriefly(t, tg, "set")
			stopAndCheckGone(t, tg)
			if left, _ := filepath.Glob(filepath.Join(tmpfs, "zkbench-"+spec+"-*")); len(left) > 0 {
				t.Errorf("left on tmpfs after stop: %q", left)
			}
		})
	}
}

func TestZooKeeper3SlowLeader(t *testing.T) {
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	tmpfs, disk := tmpfsAndDisk(t)
	o := testOptions(t, "set")
	o.forceSync, o.tmpfsDir, o.diskDir = true, tmpfs, disk
	tg := startTestTarget(t, "zookeeper3slow", o)
	if !strings.HasPrefix(tg.desc, "Apache ZooKeeper three-node ensemble, forceSync=yes, the leader's (server ") {
		t.Errorf("desc %q", tg.desc)
	}
	checkOwnProcesses(t, tg, 3)
	checkPlacement(t, tg, true)
	benchBriefly(t, tg, "set")
	stopAndCheckGone(t, tg)
}

func TestLeaderCheck(t *testing.T) {
	addrs := []string{"h:1", "h:2", "h:3"}
	modes := map[string]string{"h:1": "follower", "h:2": "leader", "h:3": "follower"}
	mode := func(addr string) (string, error) {
		if m, ok := modes[addr]; ok {
			return m, nil
		}
		return "", errors.New("refused")
	}
	check := leaderCheck(addrs, 1, mode)
	if err := check(); err != nil {
		t.Errorf("leader where it was: %v", err)
	}
	modes["h:2"], modes["h:3"] = "follower", "leader"
	if err := check(); err == nil || !strings.Contains(err.Error(), "h:2, is follower, not the leader") {
		t.Errorf("leader moved: %v", err)
	}
	delete(modes, "h:2")
	if err := check(); err == nil || !strings.Contains(err.Error(), "is not serving") {
		t.Errorf("disk server down: %v", err)
	}
	if got := askModes(addrs, mode); !slices.Equal(got, []string{"follower", "not serving", "leader"}) {
		t.Errorf("askModes = %v", got)
	}
}
