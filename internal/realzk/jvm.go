package realzk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zkraft/zkraft/internal/testports"
)

// This file holds what Start and StartEnsemble share: the zoo.cfg and
// log4j files, the java command line, the JVM's life cycle, and the
// probes that tell whether a server serves.

var errExited = errors.New("realzk: JVM exited before serving")

// freePort returns a free loopback port from internal/testports' range,
// below the kernel's ephemeral ports: a server another test starts
// on port 0 cannot take one of them between the pick and the JVM's bind,
// and then answer the ruok that tells Start the JVM serves (the likely
// cause of one zkCli.sh SASL login refused by a server without SASL, seen
// once in a quiet make test with -p 3). A process outside the tests can still
// take one; callers retry when the JVM exits.
func freePort() (int, error) { return testports.Pick() }

// freePorts returns n distinct free ports, as freePort.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for len(ports) < n {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	return ports, nil
}

// baseConfig returns the zoo.cfg keys every server gets: data in dataDir,
// clients on 127.0.0.1:port, every four-letter word, no AdminServer, and
// forceSync from opts.
func baseConfig(dataDir string, port int, opts Options) map[string]string {
	cfg := map[string]string{
		"tickTime":                "2000",
		"dataDir":                 dataDir,
		"clientPort":              fmt.Sprint(port),
		"clientPortAddress":       "127.0.0.1",
		"maxClientCnxns":          "0",
		"4lw.commands.whitelist":  "*",
		"admin.enableServer":      "false",
		"extendedTypesEnabled":    "true",
		"forceSync":               "no",
		"autopurge.purgeInterval": "0",
	}
	if opts.ForceSync {
		cfg["forceSync"] = "yes"
	}
	return cfg
}

// formatConfig writes cfg as key=value lines in key order.
func formatConfig(cfg map[string]string) []byte {
	var b bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(cfg)) {
		fmt.Fprintf(&b, "%s=%s\n", k, cfg[k])
	}
	return b.Bytes()
}

func merge(dst, src map[string]string) {
	for k, v := range src {
		if v == "" {
			delete(dst, k)
		} else {
			dst[k] = v
		}
	}
}

const log4jConfig = `log4j.rootLogger=ERROR, C
log4j.appender.C=org.apache.log4j.ConsoleAppender
log4j.appender.C.layout=org.apache.log4j.PatternLayout
log4j.appender.C.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{1} - %m%n
`

// classpath returns zookeeper.jar (its manifest brings the dependencies)
// plus an slf4j binding (and the servlet jar for the AdminServer): log4j 1.2 when installed, else the NOP binding.
// The Debian manifest leaves out netty-codec and netty-resolver, which
// NettyServerCnxnFactory (the TLS server) needs: they are added too.
func classpath(opts Options) string {
	cp := append([]string{ZooKeeperJar}, adminJars(opts)...)
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	for _, j := range []string{"netty-codec.jar", "netty-resolver.jar"} {
		if exists(JarDir + "/" + j) {
			cp = append(cp, JarDir+"/"+j)
		}
	}
	l4j := []string{JarDir + "/slf4j-log4j12.jar", JarDir + "/log4j-1.2.jar"}
	switch {
	case exists(l4j[0]) && exists(l4j[1]):
		cp = append(cp, l4j...)
	case exists(JarDir + "/slf4j-nop.jar"):
		cp = append(cp, JarDir+"/slf4j-nop.jar")
	}
	return strings.Join(cp, string(os.PathListSeparator))
}

// Main classes of the JVMs realzk starts.
const (
	standaloneMain = "org.apache.zookeeper.server.ZooKeeperServerMain"
	quorumMain     = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
)

// jvm is one running ZooKeeper JVM, in its own process group.
type jvm struct {
	cmd     *exec.Cmd
	logPath string        // its stdout and stderr
	started time.Time     // just before the exec
	done    chan struct{} // closed when the JVM has exited
	waitErr error         // set before done is closed
}

// launch writes cfg as dir/zoo.cfg and a log4j configuration next to it,
// and starts java mainClass dir/zoo.cfg with dir as working directory and
// output to dir/out.log.
func launch(dir, mainClass string, cfg []byte, opts Options) (*jvm, error) {
	cfgPath := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		return nil, err
	}
	l4jPath := filepath.Join(dir, "log4j.properties")
	if err := os.WriteFile(l4jPath, []byte(log4jConfig), 0o644); err != nil {
		return nil, err
	}
	props := map[string]string{
		SuperDigestProperty:           SuperDigest,
		"log4j.configuration":         "file:" + l4jPath,
		"zookeeper.log.dir":           dir,
		"zookeeper.root.logger":       "ERROR,C",
		"zookeeper.jmx.log4j.disable": "true",
	}
	merge(props, opts.SystemProps)
	heap := opts.Heap
	if heap == "" {
		heap = DefaultHeap
	}
	args := []string{"-Xmx" + heap}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		args = append(args, "-D"+k+"="+props[k])
	}
	args = append(args, "-cp", classpath(opts), mainClass, cfgPath)

	logPath := filepath.Join(dir, "out.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("java", args...)
	cmd.Dir = dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = sysProcAttr()
	started := time.Now()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("realzk: start java: %w", err)
	}
	j := &jvm{cmd: cmd, logPath: logPath, started: started, done: make(chan struct{})}
	go func() {
		j.waitErr = cmd.Wait()
		logf.Close()
		close(j.done)
	}()
	return j, nil
}

// exited returns errExited (with the exit status) once the JVM has exited,
// else nil.
func (j *jvm) exited() error {
	select {
	case <-j.done:
		return fmt.Errorf("%w (%v)", errExited, j.waitErr)
	default:
		return nil
	}
}

// kill kills the JVM's process group and waits for the JVM to exit.
func (j *jvm) kill() {
	select {
	case <-j.done:
		return
	default:
	}
	killGroup(j.cmd.Process)
	<-j.done
}

// logTail returns the end of the JVM's output, to add to an error.
func (j *jvm) logTail() string {
	return fmt.Sprintf("--- %s ---\n%s", j.logPath, tail(j.logPath, 4000))
}

// serving reports whether the server at addr answers ruok and grants a
// session; when not, it says what it saw.
func serving(addr string) error {
	out, err := FourLetterWord(addr, "ruok", time.Second)
	if err != nil {
		return err
	}
	// A server that refuses ruok because of its whitelist is up too.
	// ruok answers before the ZooKeeperServer runs, when sessions are
	// still refused, so a session handshake must succeed as well.
	if out != "imok" && !strings.Contains(out, "not in the whitelist") {
		return fmt.Errorf("ruok: %q", out)
	}
	if err := probeSession(addr, time.Second); err != nil {
		return fmt.Errorf("imok, but %w", err)
	}
	return nil
}

// poll calls check with a short backoff until it returns nil, the deadline
// passes (the error then wraps check's last error) or stop returns an
// error, which is returned as it is.
func poll(deadline time.Time, stop func() error, check func() error) error {
	backoff := 20 * time.Millisecond
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		<-timer.C
		if err := stop(); err != nil {
			return err
		}
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		timer.Reset(backoff)
		backoff = min(backoff*3/2, 50*time.Millisecond) // fine enough to time start-up
	}
}

// FourLetterWord sends a four-letter command (ruok, srvr, mntr, ...) on a
// fresh connection and returns everything the server wrote before closing.
func FourLetterWord(addr, cmd string, timeout time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(timeout)); err != nil {
		return "", err
	}
	if _, err := io.WriteString(c, cmd); err != nil {
		return "", err
	}
	b, err := io.ReadAll(c)
	return string(b), err
}

// Mode asks the server at addr for srvr and returns its Mode line's value:
// standalone, leader, follower, observer or read-only. It works for
// zkraft's zkserver as well as for ZooKeeper. A server that is up but not
// serving (looking for a leader) answers srvr without a Mode; that is an
// error.
func Mode(addr string, timeout time.Duration) (string, error) {
	out, err := FourLetterWord(addr, "srvr", timeout)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(out) {
		if mode, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(mode), nil
		}
	}
	return "", fmt.Errorf("srvr on %s: no Mode in %q", addr, strings.TrimSpace(out))
}

// probeSession opens a session (ConnectRequest with a zero session id)
// and closes it again (closeSession), proving that the server serves.
func probeSession(addr string, timeout time.Duration) error {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	// ConnectRequest{protocolVersion 0, lastZxidSeen 0, timeOut 10000,
	// sessionId 0, passwd 16 zero bytes}, without the readOnly byte.
	req := make([]byte, 4+44)
	binary.BigEndian.PutUint32(req[0:], 44)
	binary.BigEndian.PutUint32(req[16:], 10000)
	binary.BigEndian.PutUint32(req[28:], 16)
	if _, err := c.Write(req); err != nil {
		return err
	}
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return fmt.Errorf("no ConnectResponse: %w", err)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n < 16 || n > 1024 {
		return fmt.Errorf("bad ConnectResponse length %d", n)
	}
	resp := make([]byte, n)
	if _, err := io.ReadFull(c, resp); err != nil {
		return fmt.Errorf("short ConnectResponse: %w", err)
	}
	if binary.BigEndian.Uint32(resp[4:]) == 0 {
		return errors.New("session refused")
	}
	// closeSession: RequestHeader{xid 1, type -11}; wait for its reply.
	closeReq := []byte{0, 0, 0, 8, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xf5}
	if _, err := c.Write(closeReq); err != nil {
		return err
	}
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return fmt.Errorf("no closeSession reply: %w", err)
	}
	return nil
}

func tail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > n {
		f.Seek(fi.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}
