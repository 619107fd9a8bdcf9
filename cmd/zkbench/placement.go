package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// Placement: where an ensemble's members keep their data. A replicated
// write with forceSync=yes waits for the leader's fsync and for a quorum
// of followers' fsyncs; on one shared disk they queue behind each other.
// The slow-leader setup puts the leader's log on a real disk and the
// followers' on tmpfs, where fsync costs nothing, so a write waits for
// one real fsync, the leader's: how much of it does the commit path hide?
// The all-tmpfs ensemble is the floor, the same ensemble with no disk.
//
//	zkserver3slow, zookeeper3slow    the leader's dataDir (ZooKeeper: and
//	                                 dataLogDir) under -diskdir, which must
//	                                 not be tmpfs; the other members' under
//	                                 -tmpfsdir, which must be tmpfs
//	zkserver3tmpfs, zookeeper3tmpfs  every member's under -tmpfsdir
//
// (and the same suffixes on the other ensemble shapes: zkserver5slow).
//
// Which server leads is known only once the ensemble has elected one, and
// moving a leader's log means restarting it, which ends its leadership.
// So a slow-leader ensemble starts with every member's data on disk,
// zkbench asks srvr which server leads, and then moves each of the other
// members' data to tmpfs, one member at a time: stop it, copy its dataDir
// to tmpfs, point its zoo.cfg there, start it again, and wait until it
// follows (or observes) again. A follower's restart leaves the leader its
// quorum, so the leader keeps leading, and stays the only server on disk;
// zkbench checks that it still leads after the moves and again before
// every round, and fails, naming the servers' modes, if it does not.
// The same works for both servers, without a leadership-transfer command
// (zkserver has none outside its shutdown, whose hand-over target Raft
// picks; ZooKeeper's fresh ensembles do tend to elect the highest myid,
// but nothing guarantees it).

// placement says where an ensemble's members keep their data.
type placement int

const (
	placeDefault    placement = iota // every member under the temp directory
	placeSlowLeader                  // the leader under -diskdir, the others under -tmpfsdir
	placeTmpfs                       // every member under -tmpfsdir
)

// placementSuffixes are the target name suffixes of the placements.
var placementSuffixes = map[string]placement{"slow": placeSlowLeader, "tmpfs": placeTmpfs}

// defaultTmpfsDir is -tmpfsdir's default: Linux's shared-memory tmpfs.
const defaultTmpfsDir = "/dev/shm"

// placedDirs are the roots a placement uses, with their filesystems.
type placedDirs struct {
	disk, diskFS   string // for placeSlowLeader
	tmpfs, tmpfsFS string
}

// placementDirs returns and checks the roots of pl: -tmpfsdir must be a
// tmpfs, and for a slow leader -diskdir (default: the temp directory) must
// not be a memory filesystem. Where the filesystem type cannot be read
// (not Linux), it is taken on trust.
func placementDirs(pl placement, o *options) (placedDirs, error) {
	d := placedDirs{tmpfs: o.tmpfsDir, disk: o.diskDir}
	if d.disk == "" {
		d.disk = os.TempDir()
	}
	var err error
	if d.tmpfsFS, err = fsType(d.tmpfs); err != nil {
		return d, fmt.Errorf("-tmpfsdir %s: %w", d.tmpfs, err)
	}
	if d.tmpfsFS != "" && d.tmpfsFS != "tmpfs" {
		return d, fmt.Errorf("-tmpfsdir %s is on %s, not tmpfs; give a tmpfs directory (df -T shows the types; mount -t tmpfs tmpfs DIR makes one)", d.tmpfs, d.tmpfsFS)
	}
	if pl != placeSlowLeader {
		return d, nil
	}
	if d.diskFS, err = fsType(d.disk); err != nil {
		return d, fmt.Errorf("-diskdir %s: %w", d.disk, err)
	}
	if memoryFS(d.diskFS) {
		return d, fmt.Errorf("-diskdir %s is on %s, not on a disk; give a directory on a real disk with -diskdir (df -T shows the types)", d.disk, d.diskFS)
	}
	return d, nil
}

// memoryFS reports whether a filesystem type keeps its files in memory.
func memoryFS(typ string) bool { return typ == "tmpfs" || typ == "ramfs" }

// fsTypeNames names the statfs magic numbers of the filesystems a
// dataDir is likely to be on (linux/magic.h).
var fsTypeNames = map[int64]string{
	0x01021994: "tmpfs",
	0x858458f6: "ramfs",
	0xef53:     "ext4", // also ext2 and ext3
	0x58465342: "xfs",
	0x9123683e: "btrfs",
	0x2fc12fc1: "zfs",
	0x794c7630: "overlayfs",
	0x6969:     "nfs",
	0x65735546: "fuse",
	0x01021997: "9p",
}

// fsTypeName names a statfs magic number.
func fsTypeName(magic int64) string {
	if n, ok := fsTypeNames[magic]; ok {
		return n
	}
	return fmt.Sprintf("filesystem 0x%x", magic)
}

// placeMembers returns the data directory of each of n members once
// member leader (an index) leads: for placeSlowLeader the leader's under
// disk and the others' under tmpfs, for placeTmpfs every one under tmpfs,
// and for placeDefault every one under disk. Member i's is ROOT/i+1/data.
func placeMembers(pl placement, n, leader int, disk, tmpfs string) []string {
	dirs := make([]string, n)
	for i := range dirs {
		root := tmpfs
		if pl == placeDefault || pl == placeSlowLeader && i == leader {
			root = disk
		}
		dirs[i] = filepath.Join(root, strconv.Itoa(i+1), "data")
	}
	return dirs
}

// configValue returns the value of key in a zoo.cfg ("" if it has none).
func configValue(cfg []byte, key string) string {
	for _, line := range strings.Split(string(cfg), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// setConfig returns cfg, a zoo.cfg, with the keys of set given their
// values: a key's line is replaced where it is, keys cfg lacks are added
// at the end in key order.
func setConfig(cfg []byte, set map[string]string) []byte {
	done := map[string]bool{}
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(cfg), "\n") {
		if line == "" {
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if v, change := set[k]; ok && change {
			if !done[k] {
				fmt.Fprintf(&b, "%s=%s\n", k, v)
			}
			done[k] = true
			continue
		}
		b.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			b.WriteByte('\n')
		}
	}
	var keys []string
	for k := range set {
		if !done[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, set[k])
	}
	return []byte(b.String())
}

// moveTree copies the directory src to dst (which must not exist yet),
// then removes src: os.Rename cannot cross filesystems.
func moveTree(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("move %s: %s exists", src, dst)
	}
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case info.Mode().IsRegular():
			return copyFile(path, to, info.Mode().Perm())
		}
		return fmt.Errorf("move %s: %s is neither a file nor a directory", src, path)
	})
	if err != nil {
		return err
	}
	return os.RemoveAll(src)
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// leaderIndex returns the index of the only "leader" among modes, or -1.
func leaderIndex(modes []string) int {
	i := -1
	for j, m := range modes {
		if m == "leader" {
			if i >= 0 {
				return -1
			}
			i = j
		}
	}
	return i
}

// askModes returns the Mode of every server ("not serving" when one does
// not answer).
func askModes(addrs []string, mode modeFunc) []string {
	modes := make([]string, len(addrs))
	for i, a := range addrs {
		m, err := mode(a)
		if err != nil {
			m = "not serving"
		}
		modes[i] = m
	}
	return modes
}

// waitModesReady polls srvr until the servers show one leader, the voters
// following and the last observers observing, as modesReady; exited, when
// set, fails the wait once a process has died.
func waitModesReady(ctx context.Context, addrs []string, observers int, exited func() error) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, leaderWait)
	defer cancel()
	for {
		if exited != nil {
			if err := exited(); err != nil {
				return nil, err
			}
		}
		modes := askModes(addrs, srvrMode)
		if modesReady(modes, observers) {
			return modes, nil
		}
		select {
		case <-ctx.Done():
			return modes, fmt.Errorf("servers not ready (modes %s): %w", strings.Join(modes, ", "), ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// mover moves one member's data while the others run: it stops member i,
// moves its data to dataDir, rewrites its zoo.cfg and starts it again.
type mover func(i int, dataDir string) error

// placeLeader moves, one member at a time, every member but the leader
// whose data placeMembers puts elsewhere than it is now, waiting after
// each move until every server serves in its role again, and returns the
// leader's index once it has checked that the same server still leads.
func placeLeader(ctx context.Context, pl placement, addrs []string, observers int, dirs placedDirs,
	current []string, move mover, exited func() error) (int, error) {
	modes, err := waitModesReady(ctx, addrs, observers, exited)
	if err != nil {
		return -1, err
	}
	leader := leaderIndex(modes)
	if leader < 0 {
		return -1, fmt.Errorf("no single leader (modes %s)", strings.Join(modes, ", "))
	}
	want := placeMembers(pl, len(addrs), leader, dirs.disk, dirs.tmpfs)
	for i := range addrs {
		if i == leader || want[i] == current[i] {
			continue
		}
		if err := move(i, want[i]); err != nil {
			return -1, fmt.Errorf("move the data of server %d (%s) to %s: %w", i+1, addrs[i], want[i], err)
		}
		if modes, err = waitModesReady(ctx, addrs, observers, exited); err != nil {
			return -1, fmt.Errorf("after moving the data of server %d to %s: %w", i+1, want[i], err)
		}
		if l := leaderIndex(modes); l != leader {
			return -1, fmt.Errorf("the leadership moved from server %d to server %d while server %d's data moved to tmpfs (modes %s): the server on disk does not lead",
				leader+1, l+1, i+1, strings.Join(modes, ", "))
		}
	}
	return leader, nil
}

// leaderCheck returns a target check that fails once addrs[leader] (the
// server with its data on disk) no longer leads.
func leaderCheck(addrs []string, leader int, mode modeFunc) func() error {
	return func() error {
		modes := askModes(addrs, mode)
		if modes[leader] != "leader" {
			return fmt.Errorf("the server whose data is on disk, %s, is %s, not the leader (modes %s): rounds would not measure a slow-disk leader",
				addrs[leader], modes[leader], strings.Join(modes, ", "))
		}
		return nil
	}
}

// placementDesc describes where the members' data is.
func placementDesc(pl placement, dirs placedDirs, leaderID int) string {
	switch pl {
	case placeSlowLeader:
		return fmt.Sprintf("the leader's (server %d) data on disk under %s (%s), the others' on tmpfs under %s",
			leaderID, dirs.disk, dirs.diskFS, dirs.tmpfs)
	case placeTmpfs:
		return "every server's data on tmpfs under " + dirs.tmpfs
	}
	return ""
}

// startZooKeeperPlaced starts a ZooKeeper ensemble with placement pl: for
// placeTmpfs in a directory on tmpfs; for placeSlowLeader on disk, then
// moves every member but the leader to tmpfs (see above). realzk keeps
// member N in DIR/N, its zoo.cfg there and its data in the zoo.cfg's
// dataDir; a moved member gets dataDir and dataLogDir on tmpfs.
func startZooKeeperPlaced(name string, sh shape, pl placement, o *options, opts realzk.Options) (*target, error) {
	dirs, err := placementDirs(pl, o)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	root := dirs.tmpfs
	if pl == placeSlowLeader {
		root = dirs.disk
	}
	dir, err := os.MkdirTemp(root, "zkbench-"+name+"-")
	if err != nil {
		return nil, err
	}
	var moved string // the tmpfs directory the followers' data moves to
	cleanup := func() error {
		err := os.RemoveAll(dir)
		if moved != "" {
			err = errors.Join(err, os.RemoveAll(moved))
		}
		return err
	}
	e, err := realzk.StartEnsembleObservers(dir, sh.voters, sh.observers, opts)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	t := &target{name: name, addrs: e.Addrs(), members: zkEnsembleMembers{e, opts},
		stop: func() error { return errors.Join(e.Stop(), cleanup()) }}
	leader := -1
	if pl == placeSlowLeader {
		if moved, err = os.MkdirTemp(dirs.tmpfs, "zkbench-"+name+"-"); err != nil {
			t.stop()
			return nil, err
		}
		n := sh.size()
		current := placeMembers(placeDefault, n, -1, dir, "")
		d := dirs
		d.tmpfs = moved
		move := func(i int, dataDir string) error {
			if err := e.Kill(i); err != nil {
				return err
			}
			cfgPath := filepath.Join(e.Dir(), strconv.Itoa(i+1), "zoo.cfg")
			cfg, err := os.ReadFile(cfgPath)
			if err != nil {
				return err
			}
			from := configValue(cfg, "dataDir")
			if l := configValue(cfg, "dataLogDir"); l != "" && l != from {
				return fmt.Errorf("%s has a dataLogDir of its own, %s", cfgPath, l)
			}
			if err := moveTree(from, dataDir); err != nil {
				return err
			}
			cfg = setConfig(cfg, map[string]string{"dataDir": dataDir, "dataLogDir": dataDir})
			if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
				return err
			}
			return e.Restart(i, opts)
		}
		if leader, err = placeLeader(context.Background(), pl, t.addrs, sh.observers, d, current, move, nil); err != nil {
			t.stop()
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		t.check = leaderCheck(t.addrs, leader, srvrMode)
	}
	t.pids = e.Pids()
	t.desc = fmt.Sprintf("Apache ZooKeeper %s, forceSync=%s, %s", shapeDesc(sh), o.forceSync.String(), placementDesc(pl, dirs, leader+1))
	return t, nil
}
