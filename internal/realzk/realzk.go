package realzk

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	// AdminServer turns ZooKeeper's AdminServer on, on a free loopback
	// port (AdminAddr), with the servlet jar Jetty needs on the classpath.
	// It is off by default: the JVM then starts faster and takes no port.
	AdminServer bool
	// Heap is the JVM's maximum heap (-Xmx), as java takes it ("512m",
	// "6g"); empty means 512m, enough for the functional tests and for
	// a few hundred thousand znodes. Scale runs raise it.
	Heap string
}

// DefaultHeap is the -Xmx a server gets when Options.Heap is empty.
const DefaultHeap = "512m"

// Server is a running standalone ZooKeeper JVM.
type Server struct {
	addr      string
	adminAddr string
	dir       string
	ownDir    bool
	*jvm

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
	return startRetrying(dir, opts, launchOnce)
}

// startRetrying starts a server with launch in dir (or in a temporary
// directory when dir is "") and waits until it serves. The ports are
// picked by binding :0 and closing again, so another process can grab
// one before the JVM binds it; it retries on fresh ports if the JVM dies.
func startRetrying(dir string, opts Options, launch func(dir string, opts Options) (*Server, error)) (*Server, error) {
	dir, ownDir, err := serverDir(dir)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := startOnce(dir, opts, launch)
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

// Launch starts a standalone ZooKeeper JVM as Start does, in dir (or in a
// temporary directory removed by Stop when dir is ""), but returns as soon
// as the process has been started: Addr is known, the server is not yet
// serving. It is meant for timing the server's start-up (Started is the
// moment just before the exec); the caller probes Addr itself and watches
// Exited, since a JVM whose port was taken meanwhile exits, and Launch does
// not retry. Stop kills the JVM and cleans up as after Start.
func Launch(dir string, opts Options) (*Server, error) {
	dir, ownDir, err := serverDir(dir)
	if err != nil {
		return nil, err
	}
	s, err := launchOnce(dir, opts)
	if err != nil {
		if ownDir {
			os.RemoveAll(dir)
		}
		return nil, err
	}
	s.ownDir = ownDir
	return s, nil
}

// serverDir checks that ZooKeeper is available and returns the absolute
// server directory: dir, or a new temporary directory (ownDir) if dir is "".
func serverDir(dir string) (abs string, ownDir bool, err error) {
	if ok, reason := Available(); !ok {
		return "", false, errors.New(reason)
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "realzk-")
		if err != nil {
			return "", false, err
		}
		dir, ownDir = d, true
	}
	abs, err = filepath.Abs(dir)
	if err != nil && ownDir {
		os.RemoveAll(dir)
	}
	return abs, ownDir, err
}

// config returns the standalone server's zoo.cfg for the given port.
func config(dir string, port int, opts Options) []byte {
	cfg := baseConfig(filepath.Join(dir, "data"), port, opts)
	cfg["standaloneEnabled"] = "true"
	merge(cfg, opts.ExtraConfig)
	return formatConfig(cfg)
}

// launchOnce writes the configuration for a free port and starts the JVM,
// without waiting for it.
func launchOnce(dir string, opts Options) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	opts, adminAddr, err := withAdmin(opts)
	if err != nil {
		return nil, err
	}
	j, err := launch(dir, standaloneMain, config(dir, port, opts), opts)
	if err != nil {
		return nil, err
	}
	return &Server{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), adminAddr: adminAddr, dir: dir, jvm: j}, nil
}

// startOnce launches the JVM with launch and waits until it serves; it
// kills the JVM when it does not.
func startOnce(dir string, opts Options, launch func(dir string, opts Options) (*Server, error)) (*Server, error) {
	s, err := launch(dir, opts)
	if err != nil {
		return nil, err
	}
	j := s.jvm
	deadline := time.Now().Add(StartTimeout)
	if err := poll(deadline, j.exited, func() error { return serving(s.addr) }); err != nil {
		j.kill()
		if !errors.Is(err, errExited) {
			err = fmt.Errorf("realzk: no answer to ruok on %s within %v (last: %w)", s.addr, StartTimeout, err)
		}
		return nil, fmt.Errorf("%w\n%s", err, j.logTail())
	}
	return s, nil
}

// Addr returns the client address, 127.0.0.1:port.
func (s *Server) Addr() string { return s.addr }

// Dir returns the server's directory (zoo.cfg, data/, out.log).
func (s *Server) Dir() string { return s.dir }

// Pid returns the JVM's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Started returns the moment just before the JVM was executed.
func (s *Server) Started() time.Time { return s.started }

// Exited returns nil while the JVM runs; once it has exited, an error with
// its exit status and the end of its output.
func (s *Server) Exited() error {
	if err := s.exited(); err != nil {
		return fmt.Errorf("%w\n%s", err, s.logTail())
	}
	return nil
}

// Stop kills the JVM's process group, waits for the JVM to exit and removes
// the directory if Start or Launch created it. It is safe to call more than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.kill()
		if s.ownDir {
			s.stopErr = os.RemoveAll(s.dir)
		}
	})
	return s.stopErr
}
