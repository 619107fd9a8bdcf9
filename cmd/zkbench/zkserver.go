package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/zkraft/zkraft/internal/realzk"
)

// The zkserver and zkserver3 targets run the zkserver binary as processes
// of their own, each from a zoo.cfg zkbench writes, so that zkraft is
// measured as it is deployed: its own address space, scheduler and garbage
// collector, and its PIDs can be watched.

// stopGrace is how long a zkserver process has to exit after SIGTERM
// before it is killed.
const stopGrace = 10 * time.Second

// findZkserver returns the zkserver binary to run: path when -zkserver
// names one, else a zkserver next to zkbench's own executable, else the
// one on PATH.
func findZkserver(path string) (string, error) {
	name := "zkserver"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if path != "" {
		if err := isExecutable(path); err != nil {
			return "", fmt.Errorf("-zkserver %s: %w", path, err)
		}
		return filepath.Abs(path)
	}
	var tried []string
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if isExecutable(p) == nil {
			return p, nil
		}
		tried = append(tried, p)
	}
	if p, err := exec.LookPath(name); err == nil {
		return filepath.Abs(p)
	}
	tried = append(tried, "$PATH")
	return "", fmt.Errorf("zkserver binary not found (looked at %s); build it with `go build -o DIR ./cmd/zkserver` and pass -zkserver DIR/zkserver",
		strings.Join(tried, " and "))
}

// isExecutable reports why path is not a file that can be run.
func isExecutable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case fi.IsDir():
		return errors.New("is a directory")
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return errors.New("not executable")
	}
	return nil
}

// startZkserver starts zkserver processes of shape sh: with one voter a
// standalone server in memory (a zoo.cfg without dataDir, as `zkserver`
// with no arguments), else a durable ensemble of sh.voters voters and
// sh.observers observers with forceSync from -forcesync, its data where
// pl puts it (placement.go). It returns once the server answers, or once
// the ensemble has a leader and the others follow or observe.
func startZkserver(ctx context.Context, o *options, sh shape, pl placement) (*target, error) {
	name := zkserverName(sh) + placementSuffix(pl)
	bin, err := findZkserver(o.zkserver)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
	}
	var dirs placedDirs
	root := ""
	if pl != placeDefault {
		if dirs, err = placementDirs(pl, o); err != nil {
			return nil, fmt.Errorf("target %s: %w", name, err)
		}
		root = dirs.tmpfs
		if pl == placeSlowLeader {
			root = dirs.disk
		}
	}
	dir, err := os.MkdirTemp(root, "zkbench-"+name+"-")
	if err != nil {
		return nil, err
	}
	// A client or peer port is picked by binding :0 and closing it, so
	// another process may take it first; a process that exits before it
	// serves makes the whole target start again on fresh ports.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		z := &zkservers{bin: bin, dir: filepath.Join(dir, strconv.Itoa(attempt)), extra: o.cfg, admin: o.watches.admin}
		err := z.start(ctx, sh, bool(o.forceSync))
		var moved string
		leader := -1
		if err == nil && pl == placeSlowLeader {
			moved, leader, err = z.placeSlowLeader(ctx, name, dirs)
		}
		if err == nil {
			t := &target{name: name, addrs: z.addrs(), adminAddrs: z.adminAddrs(), pids: z.pids(), stop: func() error {
				z.stop()
				return errors.Join(keepLogs(o.keepLogs, dir, name), os.RemoveAll(dir), removeIf(moved))
			}, members: z}
			t.desc = "zkserver standalone, in memory, own process (" + bin + ")"
			if sh.size() > 1 {
				t.desc = fmt.Sprintf("zkserver %s, durable, forceSync=%s, own processes (%s)", zkserverShapeDesc(sh), o.forceSync.String(), bin)
			}
			if d := placementDesc(pl, dirs, leader+1); d != "" {
				t.desc += ", " + d
			}
			if leader >= 0 {
				t.check = leaderCheck(t.addrs, leader, srvrMode)
			}
			return t, nil
		}
		z.stop()
		removeIf(moved)
		lastErr = err
		if !errors.Is(err, errProcExited) {
			break
		}
	}
	lastErr = errors.Join(lastErr, keepLogs(o.keepLogs, dir, name))
	os.RemoveAll(dir)
	return nil, fmt.Errorf("start %s: %w", name, lastErr)
}

// placementSuffix is the target name suffix of pl ("" for placeDefault).
func placementSuffix(pl placement) string {
	for s, p := range placementSuffixes {
		if p == pl {
			return s
		}
	}
	return ""
}

// removeIf removes dir unless it is "".
func removeIf(dir string) error {
	if dir == "" {
		return nil
	}
	return os.RemoveAll(dir)
}

// placeSlowLeader moves the data of every server but the leader from the
// disk to a fresh directory under dirs.tmpfs (placement.go) and returns
// that directory and the leader's index.
func (z *zkservers) placeSlowLeader(ctx context.Context, name string, dirs placedDirs) (moved string, leader int, err error) {
	moved, err = os.MkdirTemp(dirs.tmpfs, "zkbench-"+name+"-")
	if err != nil {
		return "", -1, err
	}
	current := placeMembers(placeDefault, len(z.procs), -1, z.dir, "")
	d := dirs
	d.tmpfs = moved
	exited := func() error {
		for _, p := range z.procs {
			if err := p.exited(); err != nil {
				return err
			}
		}
		return nil
	}
	leader, err = placeLeader(ctx, placeSlowLeader, z.addrs(), z.observers, d, current, z.moveData, exited)
	return moved, leader, err
}

// moveData stops zkserver i (SIGTERM: a follower just closes), moves its
// dataDir to dataDir, points its zoo.cfg there and starts it again; the
// old process's log is kept as zkserver.log.PID.
func (z *zkservers) moveData(i int, dataDir string) error {
	old := z.procs[i]
	old.stop()
	dir := filepath.Dir(old.logPath)
	cfg, err := os.ReadFile(filepath.Join(dir, "zoo.cfg"))
	if err != nil {
		return err
	}
	if err := moveTree(configValue(cfg, "dataDir"), dataDir); err != nil {
		return err
	}
	return z.rerun(i, setConfig(cfg, map[string]string{"dataDir": dataDir}))
}

// zkserverName is the target name of shape sh: zkserver, zkserver3,
// zkserver3o2.
func zkserverName(sh shape) string {
	switch {
	case sh.size() == 1:
		return "zkserver"
	case sh.observers == 0:
		return "zkserver" + strconv.Itoa(sh.voters)
	}
	return fmt.Sprintf("zkserver%do%d", sh.voters, sh.observers)
}

// zkserverShapeDesc describes an ensemble shape: "3-node ensemble", or
// "5-node ensemble, 3 voters and 2 observers".
func zkserverShapeDesc(sh shape) string {
	d := fmt.Sprintf("%d-node ensemble", sh.size())
	if sh.observers > 0 {
		d += fmt.Sprintf(", %d voters and %d observers", sh.voters, sh.observers)
	}
	return d
}

// zkservers is the set of zkserver processes of one target.
type zkservers struct {
	bin       string
	dir       string
	observers int     // the last observers processes are observers
	extra     cfgFlag // -cfg lines for every zoo.cfg
	admin     bool    // -watchadmin: the AdminServer on a free loopback port
	procs     []*proc
	// admins are the procs' AdminServer addresses when admin is set; kept
	// here because a process run again (rerun) keeps its zoo.cfg.
	admins []string
}

// markObservers makes the last k of servers' server.N lines observers.
func markObservers(servers map[int64]string, k int) {
	n := int64(len(servers))
	for id := n - int64(k) + 1; id <= n; id++ {
		servers[id] += ":observer"
	}
}

// zkserverConfig returns the zoo.cfg of a server on clientPort: with
// servers (the server.N lines) and dataDir a durable ensemble member,
// else an in-memory standalone server.
func zkserverConfig(clientPort int, dataDir string, servers map[int64]string, forceSync bool) []byte {
	return zkserverMemberConfig(clientPort, dataDir, servers, forceSync, false)
}

// zkserverMemberConfig is zkserverConfig for an ensemble member that is an
// observer when observer is set: its zoo.cfg says peerType=observer, as
// ZooKeeper's does (its server.N line in servers ends in :observer).
func zkserverMemberConfig(clientPort int, dataDir string, servers map[int64]string, forceSync, observer bool) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=2000\nclientPort=%d\nclientPortAddress=127.0.0.1\n", clientPort)
	b.WriteString("maxClientCnxns=0\n4lw.commands.whitelist=*\nadmin.enableServer=false\n")
	if dataDir != "" {
		fs := "no"
		if forceSync {
			fs = "yes"
		}
		fmt.Fprintf(&b, "dataDir=%s\nforceSync=%s\n", dataDir, fs)
	}
	if observer {
		b.WriteString("peerType=observer\n")
	}
	if len(servers) > 0 {
		b.WriteString("initLimit=10\nsyncLimit=5\n")
		for _, id := range slices.Sorted(maps.Keys(servers)) {
			fmt.Fprintf(&b, "server.%d=%s\n", id, servers[id])
		}
	}
	return []byte(b.String())
}

// start writes the configurations (and myid files), starts the processes
// and waits until they serve.
func (z *zkservers) start(ctx context.Context, sh shape, forceSync bool) error {
	n := sh.size()
	var servers map[int64]string
	if n > 1 {
		var err error
		if servers, err = peerLines(n); err != nil {
			return err
		}
		markObservers(servers, sh.observers)
	}
	z.observers = sh.observers
	for id := 1; id <= n; id++ {
		pdir := filepath.Join(z.dir, strconv.Itoa(id))
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			return err
		}
		dataDir := ""
		if n > 1 {
			dataDir = filepath.Join(pdir, "data")
			if err := os.MkdirAll(dataDir, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dataDir, "myid"), []byte(strconv.Itoa(id)+"\n"), 0o644); err != nil {
				return err
			}
		}
		port, err := freePort()
		if err != nil {
			return err
		}
		observer := id > n-sh.observers
		cfg := z.extra.zoocfg(zkserverMemberConfig(port, dataDir, servers, forceSync, observer))
		if z.admin {
			adminPort, err := freePort()
			if err != nil {
				return err
			}
			cfg = setConfig(cfg, map[string]string{"admin.enableServer": "true",
				"admin.serverAddress": "127.0.0.1", "admin.serverPort": strconv.Itoa(adminPort)})
			z.admins = append(z.admins, fmt.Sprintf("127.0.0.1:%d", adminPort))
		}
		p, err := startProc(z.bin, pdir, cfg, true)
		if err != nil {
			return err
		}
		p.addr = fmt.Sprintf("127.0.0.1:%d", port)
		z.procs = append(z.procs, p)
	}
	return z.waitReady(ctx)
}

// waitReady polls srvr until a standalone server reports Mode standalone,
// or an ensemble one leader and followers.
func (z *zkservers) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, leaderWait)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var modes []string
		for _, p := range z.procs {
			if err := p.exited(); err != nil {
				return err
			}
			mode, err := realzk.Mode(p.addr, time.Second)
			if err != nil {
				mode = "not serving"
			}
			modes = append(modes, mode)
		}
		if modesReady(modes, z.observers) {
			return nil
		}
		select {
		case <-ctx.Done():
			var logs strings.Builder
			for _, p := range z.procs {
				fmt.Fprintf(&logs, "\n%s", p.logTail())
			}
			return fmt.Errorf("servers not ready (modes %s): %w%s", strings.Join(modes, ", "), ctx.Err(), logs.String())
		case <-tick.C:
		}
	}
}

// modesReady reports whether srvr's modes show a server that serves: one
// standalone, or one leader, the other voters following and the last
// observers servers observing.
func modesReady(modes []string, observers int) bool {
	if len(modes) == 1 {
		return modes[0] == "standalone"
	}
	leaders := 0
	for i, m := range modes {
		switch {
		case i >= len(modes)-observers:
			if m != "observer" {
				return false
			}
		case m == "leader":
			leaders++
		case m != "follower":
			return false
		}
	}
	return leaders == 1
}

func (z *zkservers) addrs() []string {
	var a []string
	for _, p := range z.procs {
		a = append(a, p.addr)
	}
	return a
}

// adminAddrs returns the AdminServer addresses, nil unless z.admin.
func (z *zkservers) adminAddrs() []string {
	return z.admins
}

func (z *zkservers) pids() []int {
	var pids []int
	for _, p := range z.procs {
		pids = append(pids, p.cmd.Process.Pid)
	}
	return pids
}

// stop stops every process at once.
func (z *zkservers) stop() {
	var wg sync.WaitGroup
	for _, p := range z.procs {
		wg.Go(p.stop)
	}
	wg.Wait()
}

var errProcExited = errors.New("zkserver exited before serving")

// proc is one zkserver process.
type proc struct {
	addr    string
	cmd     *exec.Cmd
	logPath string
	started time.Time     // just before the exec
	done    chan struct{} // closed when the process has exited
	waitErr error         // set before done is closed
}

// startProc writes cfg to dir/zoo.cfg and runs the zkserver binary on it,
// its log (stderr) to dir/zkserver.log; with pprof, with a debug listener
// on a free loopback port.
func startProc(bin, dir string, cfg []byte, pprof bool) (*proc, error) {
	cfgPath := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "zkserver.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	var args []string
	if pprof {
		// The debug listener lets the memory ops read the live heap
		// (memory.go finds its address on the command line).
		debugPort, err := freePort()
		if err != nil {
			logf.Close()
			return nil, err
		}
		args = append(args, "-pprof", fmt.Sprintf("127.0.0.1:%d", debugPort))
	}
	cmd := exec.Command(bin, append(args, cfgPath)...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	started := time.Now()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("run %s: %w", bin, err)
	}
	p := &proc{cmd: cmd, logPath: logPath, started: started, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// exited returns errProcExited, with the exit status and the end of the
// log, once the process has exited; else nil.
func (p *proc) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%w (%v)\n%s", errProcExited, p.waitErr, p.logTail())
	default:
		return nil
	}
}

// stop asks the process to shut down (SIGTERM), kills it if it has not
// exited after stopGrace, and waits for it.
func (p *proc) stop() {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.cmd.Process.Kill()
	}
	timer := time.NewTimer(stopGrace)
	defer timer.Stop()
	select {
	case <-p.done:
		return
	case <-timer.C:
	}
	p.cmd.Process.Kill()
	<-p.done
}

// logTail returns the end of the process's log.
func (p *proc) logTail() string {
	f, err := os.Open(p.logPath)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	const n = 4000
	if fi, err := f.Stat(); err == nil && fi.Size() > n {
		f.Seek(fi.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return fmt.Sprintf("--- %s ---\n%s", p.logPath, b)
}
