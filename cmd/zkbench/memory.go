package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The fill, sessions and watchers ops report the memory of the server
// processes behind a target. A target names addresses, not processes, so
// zkbench finds the process that listens on each loopback address's port
// (/proc/net/tcp{,6} and /proc/PID/fd) and reads:
//
//   - RSS: VmRSS from /proc/PID/status.
//   - Live heap of a zkserver started with -pprof ADDR (found on its command
//     line): GET http://ADDR/debug/zkraft/memstats?gc=1, which runs a full
//     GC and returns the Go runtime's HeapAlloc and StackInuse (see
//     cmd/zkserver/debug.go). Their sum is the figure: goroutine stacks are
//     live memory outside HeapAlloc, and a server with goroutines per
//     connection spends more there than in its heap (at 10,000 sessions,
//     two goroutines each held 82 MB of stacks beside 42 MB of heap). The
//     JVM's thread stacks are not in its figure, but ZooKeeper's threads do
//     not grow with its connections.
//   - Live heap of a JVM (Apache ZooKeeper): jcmd PID GC.class_histogram,
//     whose "Total" line sums the sizes of the objects still reachable: the
//     command runs a full, stop-the-world GC first, and counts only live
//     objects. GC.heap_info's "used" after GC.run would also count the
//     unused tails of G1 regions and any allocation since the GC, so the
//     histogram is the closer figure for "bytes of live objects".
//
// A target served by this very process (zkraft, zkraft3) has no memory of
// its own to measure, and one on another machine cannot be read: the ops
// then report their times only and say why memory is missing.

// heapReader returns the live heap of one process, in bytes, after a full GC.
type heapReader func(ctx context.Context) (int64, error)

// serverProc is one server process of a target.
type serverProc struct {
	pid      int
	heap     heapReader // nil when the heap cannot be read (RSS only)
	heapDesc string     // how the heap is read, or why it is not
}

// procMem reads the memory of a target's server processes.
type procMem struct {
	procs     []*serverProc
	why       string // without procs: why memory is not available
	inProcess bool   // the target's servers run in this process
}

// memSample is the memory of a target's processes at one moment, summed
// over its processes.
type memSample struct {
	rss, heap     int64
	rssOK, heapOK bool
	err           error // the first failure to read a figure
}

// heapTimeout bounds one forced GC and heap reading (jcmd starts a JVM).
const heapTimeout = 2 * time.Minute

// findMemory finds the server processes behind addrs.
func findMemory(addrs []string) *procMem {
	m := &procMem{}
	seen := map[int]bool{}
	for _, a := range addrs {
		host, portStr, err := net.SplitHostPort(a)
		port, perr := strconv.Atoi(portStr)
		if err != nil || perr != nil {
			return &procMem{why: fmt.Sprintf("cannot parse address %q", a)}
		}
		if !isLoopback(host) {
			return &procMem{why: fmt.Sprintf("server %s is not on a loopback address of this machine", a)}
		}
		pid, err := listeningPID(port)
		if err != nil {
			return &procMem{why: fmt.Sprintf("no process found for %s: %v", a, err)}
		}
		if pid == os.Getpid() {
			return &procMem{inProcess: true, why: "in-process target (its servers share zkbench's process); run the server as its own process, e.g. zkserver -pprof 127.0.0.1:6060 zoo.cfg"}
		}
		if !seen[pid] {
			seen[pid] = true
			m.procs = append(m.procs, newServerProc(pid))
		}
	}
	return m
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newServerProc works out how to read the heap of process pid: through the
// debug listener named by -pprof on its command line, or with jcmd for a
// JVM.
func newServerProc(pid int) *serverProc {
	p := &serverProc{pid: pid}
	args, err := procCmdline(pid)
	if err != nil {
		p.heapDesc = "heap not available: " + err.Error()
		return p
	}
	if addr, ok := pprofAddr(args); ok {
		url := "http://" + loopbackFor(addr) + "/debug/zkraft/memstats?gc=1"
		p.heap = func(ctx context.Context) (int64, error) { return goLiveHeap(ctx, url) }
		p.heapDesc = "Go heap_alloc + stack_inuse after a forced GC from " + url
		return p
	}
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if strings.HasPrefix(filepath.Base(exe), "java") {
		jcmd := filepath.Join(filepath.Dir(exe), "jcmd") // the JVM's own JDK
		if _, err := os.Stat(jcmd); err != nil {
			if jcmd, err = exec.LookPath("jcmd"); err != nil {
				p.heapDesc = "heap not available: jcmd not found (install the JDK's jcmd)"
				return p
			}
		}
		p.heap = func(ctx context.Context) (int64, error) { return jvmLiveHeap(ctx, jcmd, pid) }
		p.heapDesc = "JVM live objects from " + jcmd + " " + strconv.Itoa(pid) + " GC.class_histogram (after its full GC)"
		return p
	}
	p.heapDesc = "heap not available: neither a JVM nor a zkserver started with -pprof"
	return p
}

// describe says which processes are measured and how.
func (m *procMem) describe() string {
	if len(m.procs) == 0 {
		return "memory not available: " + m.why
	}
	var parts []string
	for _, p := range m.procs {
		parts = append(parts, fmt.Sprintf("pid %d, RSS from /proc/%d/status, %s", p.pid, p.pid, p.heapDesc))
	}
	return "memory: " + strings.Join(parts, "; ")
}

// sample reads the RSS of every process; with heap, it first forces a
// full GC in each and reads the live heap (the RSS is then the one after
// that GC).
func (m *procMem) sample(ctx context.Context, heap bool) memSample {
	var s memSample
	if len(m.procs) == 0 {
		return s
	}
	s.heapOK = heap
	if heap {
		ctx, cancel := context.WithTimeout(ctx, heapTimeout)
		defer cancel()
		for _, p := range m.procs {
			if p.heap == nil {
				s.heapOK = false
				continue
			}
			n, err := p.heap(ctx)
			if err != nil {
				s.heapOK = false
				s.err = firstErr(s.err, fmt.Errorf("pid %d heap: %w", p.pid, err))
				continue
			}
			s.heap += n
		}
	}
	s.rssOK = true
	for _, p := range m.procs {
		n, err := readRSS(p.pid)
		if err != nil {
			s.rssOK = false
			s.err = firstErr(s.err, fmt.Errorf("pid %d RSS: %w", p.pid, err))
			continue
		}
		s.rss += n
	}
	return s
}

// firstErr keeps the first error.
func firstErr(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

// readRSS returns VmRSS of process pid in bytes.
func readRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseVmRSS(b)
}

// parseVmRSS finds "VmRSS:   1234 kB" in the contents of /proc/PID/status.
func parseVmRSS(status []byte) (int64, error) {
	for _, line := range strings.Split(string(status), "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("unexpected VmRSS line %q", line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("unexpected VmRSS line %q", line)
		}
		return kb * 1024, nil
	}
	return 0, errors.New("no VmRSS line (a kernel thread or a zombie?)")
}

// procCmdline returns the arguments of process pid.
func procCmdline(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"), nil
}

// pprofAddr finds zkserver's -pprof flag in its arguments (any of the forms
// the flag package accepts, before the first non-flag argument).
func pprofAddr(args []string) (string, bool) {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return "", false
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name != "pprof" {
			continue
		}
		if hasValue {
			return value, value != ""
		}
		if i+1 < len(args) && args[i+1] != "" {
			return args[i+1], true
		}
		return "", false
	}
	return "", false
}

// loopbackFor turns a listen address with no host or an unspecified one
// (":6060", "0.0.0.0:6060") into one zkbench can connect to.
func loopbackFor(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if ip != nil && ip.To4() == nil {
			return net.JoinHostPort("::1", port)
		}
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

// goLiveHeap asks a zkserver's debug listener for its heap after a full GC.
func goLiveHeap(ctx context.Context, url string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	var ms struct {
		HeapAlloc  *int64 `json:"heap_alloc"`
		StackInuse int64  `json:"stack_inuse"` // absent (0) from older zkservers
		GCForced   bool   `json:"gc_forced"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&ms); err != nil {
		return 0, fmt.Errorf("GET %s: %w", url, err)
	}
	if ms.HeapAlloc == nil || !ms.GCForced {
		return 0, fmt.Errorf("GET %s: no heap_alloc after a forced GC in the reply", url)
	}
	return *ms.HeapAlloc + ms.StackInuse, nil
}

// jvmLiveHeap runs jcmd PID GC.class_histogram and returns its total.
func jvmLiveHeap(ctx context.Context, jcmd string, pid int) (int64, error) {
	cmd := exec.CommandContext(ctx, jcmd, strconv.Itoa(pid), "GC.class_histogram")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("%s %d GC.class_histogram: %w: %s", jcmd, pid, err, strings.TrimSpace(stderr.String()+" "+lastLine(out)))
	}
	return parseClassHistogram(out)
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// parseClassHistogram returns the byte count of the "Total" line that ends
// jcmd's GC.class_histogram: "Total   <instances>   <bytes>".
func parseClassHistogram(out []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "Total" {
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err == nil {
				return n, nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no Total line in the class histogram: %q", lastLine(out))
}

// listeningPID returns the process with a listening TCP socket on port.
func listeningPID(port int) (int, error) {
	inodes := map[uint64]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue // no IPv6
		}
		if err != nil {
			return 0, err
		}
		for _, ino := range listenInodes(b, port) {
			inodes[ino] = true
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("no socket listens on port %d", port)
	}
	return socketOwner(inodes)
}

// tcpListen is the LISTEN state in /proc/net/tcp.
const tcpListen = "0A"

// listenInodes returns the inodes of the sockets in a /proc/net/tcp or
// tcp6 table that listen on port.
func listenInodes(table []byte, port int) []uint64 {
	var inodes []uint64
	lines := strings.Split(string(table), "\n")
	for _, line := range lines[1:] { // after the header
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != tcpListen {
			continue
		}
		i := strings.LastIndexByte(f[1], ':')
		p, err := strconv.ParseUint(f[1][i+1:], 16, 16)
		if i < 0 || err != nil || int(p) != port {
			continue
		}
		if ino, err := strconv.ParseUint(f[9], 10, 64); err == nil && ino != 0 {
			inodes = append(inodes, ino)
		}
	}
	return inodes
}

// socketOwner finds the process holding one of the socket inodes among
// the processes whose file descriptors this user may read.
func socketOwner(inodes map[uint64]bool) (int, error) {
	// This process first: its in-process targets are the common case.
	if owns(os.Getpid(), inodes) {
		return os.Getpid(), nil
	}
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if owns(pid, inodes) {
			return pid, nil
		}
	}
	return 0, errors.New("the listening socket belongs to no process this user can inspect")
}

func owns(pid int, inodes map[uint64]bool) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err != nil {
			continue
		}
		s, ok := strings.CutPrefix(link, "socket:[")
		if !ok {
			continue
		}
		ino, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64)
		if err == nil && inodes[ino] {
			return true
		}
	}
	return false
}
