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
	"strconv"
	"strings"
	"sync"
	"time"
)

// JarDir is where the Debian packages install ZooKeeper's jars.
const JarDir = "/usr/share/java"

// ZooKeeperJar is the server jar; its manifest Class-Path names every
// runtime dependency (netty, jute, slf4j-api, ...).
const ZooKeeperJar = JarDir + "/zookeeper.jar"

// SuperDigest is the digest of the super user's "super:test" credentials
// that Start configures unless SystemProps overrides it.
const SuperDigest = "super:D/InIHSb7yEEbrWz8b9l71RjZJU="

// SuperDigestProperty is the JVM system property that enables the super user.
const SuperDigestProperty = "zookeeper.DigestAuthenticationProvider.superDigest"

// StartTimeout bounds how long Start waits for the server to answer ruok.
const StartTimeout = 20 * time.Second

// Options configures a server started by Start.
type Options struct {
	// ExtraConfig holds zoo.cfg lines (key=value). They override the
	// defaults Start writes; an empty value removes a default key.
	ExtraConfig map[string]string
	// SystemProps holds JVM -D properties. They override the defaults
	// (the super digest); an empty value removes a default property.
	SystemProps map[string]string
	// ForceSync makes the server fsync its transaction log (forceSync=yes,
	// ZooKeeper's own default). Without it the server runs with
	// forceSync=no, which is much faster and enough for functional tests.
	ForceSync bool
}

// Server is a running standalone ZooKeeper JVM.
type Server struct {
	addr    string
	dir     string
	ownDir  bool
	cmd     *exec.Cmd
	done    chan struct{} // closed when the JVM has exited
	waitErr error         // set before done is closed

	stopOnce sync.Once
	stopErr  error
}

// Available reports whether a real ZooKeeper can be started here: java on
// PATH and the Debian zookeeper jars installed. When it cannot, reason is a
// message suitable for t.Skip.
func Available() (ok bool, reason string) {
	if _, err := exec.LookPath("java"); err != nil {
		return false, "Apache ZooKeeper not available: java not on PATH (apt-get install -y default-jre-headless zookeeper)"
	}
	if _, err := os.Stat(ZooKeeperJar); err != nil {
		return false, "Apache ZooKeeper not installed: apt-get install -y zookeeper (" + ZooKeeperJar + " missing)"
	}
	return true, ""
}

// Start launches a standalone ZooKeeper whose configuration, data and log
// live in dir (created if missing; if dir is "", a temporary directory is
// created and removed by Stop). It returns once the server answers ruok.
func Start(dir string, opts Options) (*Server, error) {
	if ok, reason := Available(); !ok {
		return nil, errors.New(reason)
	}
	ownDir := false
	if dir == "" {
		d, err := os.MkdirTemp("", "realzk-")
		if err != nil {
			return nil, err
		}
		dir, ownDir = d, true
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// The port is picked by binding :0 and closing it, so another process can
	// grab it before the JVM binds; retry with a fresh port if the JVM dies.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := startOnce(dir, opts)
		if err == nil {
			s.ownDir = ownDir
			return s, nil
		}
		lastErr = err
		if !errors.Is(err, errExited) {
			break
		}
	}
	if ownDir {
		os.RemoveAll(dir)
	}
	return nil, lastErr
}

var errExited = errors.New("realzk: JVM exited before serving")

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// config returns the zoo.cfg contents for the given port.
func config(dir string, port int, opts Options) []byte {
	cfg := map[string]string{
		"tickTime":                "2000",
		"dataDir":                 filepath.Join(dir, "data"),
		"clientPort":              strconv.Itoa(port),
		"clientPortAddress":       "127.0.0.1",
		"maxClientCnxns":          "0",
		"4lw.commands.whitelist":  "*",
		"admin.enableServer":      "false",
		"extendedTypesEnabled":    "true",
		"forceSync":               "no",
		"standaloneEnabled":       "true",
		"autopurge.purgeInterval": "0",
	}
	if opts.ForceSync {
		cfg["forceSync"] = "yes"
	}
	merge(cfg, opts.ExtraConfig)
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
// plus an slf4j binding: log4j 1.2 when installed, else the NOP binding.
func classpath() string {
	cp := []string{ZooKeeperJar}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	l4j := []string{JarDir + "/slf4j-log4j12.jar", JarDir + "/log4j-1.2.jar"}
	switch {
	case exists(l4j[0]) && exists(l4j[1]):
		cp = append(cp, l4j...)
	case exists(JarDir + "/slf4j-nop.jar"):
		cp = append(cp, JarDir+"/slf4j-nop.jar")
	}
	return strings.Join(cp, string(os.PathListSeparator))
}

func startOnce(dir string, opts Options) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(cfgPath, config(dir, port, opts), 0o644); err != nil {
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
	args := []string{"-Xmx512m"}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		args = append(args, "-D"+k+"="+props[k])
	}
	args = append(args, "-cp", classpath(), "org.apache.zookeeper.server.ZooKeeperServerMain", cfgPath)

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
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("realzk: start java: %w", err)
	}
	s := &Server{
		addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		dir:  dir,
		cmd:  cmd,
		done: make(chan struct{}),
	}
	go func() {
		s.waitErr = cmd.Wait()
		logf.Close()
		close(s.done)
	}()
	if err := s.waitReady(StartTimeout); err != nil {
		s.kill()
		return nil, fmt.Errorf("%w\n--- %s ---\n%s", err, logPath, tail(logPath, 4000))
	}
	return s, nil
}

// waitReady polls ruok with a short backoff until the server answers, the
// JVM exits or the timeout passes.
func (s *Server) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	backoff := 20 * time.Millisecond
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-s.done:
			return fmt.Errorf("%w (%v)", errExited, s.waitErr)
		case <-timer.C:
		}
		out, err := FourLetterWord(s.addr, "ruok", time.Second)
		// A server that refuses ruok because of its whitelist is up too.
		// ruok answers before the ZooKeeperServer runs, when sessions are
		// still refused, so a session handshake must succeed as well.
		if err == nil && (out == "imok" || strings.Contains(out, "not in the whitelist")) {
			if err = probeSession(s.addr, time.Second); err == nil {
				return nil
			}
			out = "imok, but " + err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("realzk: no answer to ruok on %s within %v (last: %q, %v)", s.addr, timeout, out, err)
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

// Addr returns the client address, 127.0.0.1:port.
func (s *Server) Addr() string { return s.addr }

// Dir returns the server's directory (zoo.cfg, data/, out.log).
func (s *Server) Dir() string { return s.dir }

// Stop kills the JVM's process group, waits for the JVM to exit and removes
// the directory if Start created it. It is safe to call more than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.kill()
		if s.ownDir {
			s.stopErr = os.RemoveAll(s.dir)
		}
	})
	return s.stopErr
}

func (s *Server) kill() {
	select {
	case <-s.done:
		return
	default:
	}
	killGroup(s.cmd.Process)
	<-s.done
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
