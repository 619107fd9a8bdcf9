package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The Curator lock client: curator/LockBench.java, compiled with javac
// into a temporary directory once per zkbench run, run as `java LockBench`
// once per round on the jars of the Debian packages libcurator-*-java,
// zookeeper, guava and slf4j.

//go:embed curator/LockBench.java
var lockBenchSource []byte

// curatorJarDir holds the Debian packages' jars.
var curatorJarDir = "/usr/share/java"

// curatorJars is LockBench's classpath, in curatorJarDir: Curator's
// recipes, framework and client, the ZooKeeper client they drive, guava,
// and slf4j with its no-op binding (LockBench reports errors itself).
var curatorJars = []string{
	"curator-recipes.jar", "curator-framework.jar", "curator-client.jar",
	"zookeeper.jar", "zookeeper-jute.jar", "guava.jar", "slf4j-api.jar", "slf4j-nop.jar",
}

const curatorInstall = "apt-get install -y libcurator-recipes-java libcurator-framework-java libcurator-client-java zookeeper"

// curatorClasspath returns the jars' classpath, or what is missing.
func curatorClasspath() (string, error) {
	var cp, missing []string
	for _, j := range curatorJars {
		p := filepath.Join(curatorJarDir, j)
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
		cp = append(cp, p)
	}
	for _, tool := range []string{"java", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool+" (a JDK)")
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("missing %s (%s)", strings.Join(missing, ", "), curatorInstall)
	}
	return strings.Join(cp, string(os.PathListSeparator)), nil
}

// curatorLogEnv names an environment variable: when set to a file, the
// Curator and ZooKeeper client logs (info and above) of every LockBench
// run are appended to it, through slf4j-simple instead of slf4j-nop.
const curatorLogEnv = "ZKBENCH_CURATOR_LOG"

// curator is LockBench, compiled.
type curator struct {
	dir string // holds LockBench.class
	cp  string
}

// prepareCurator compiles LockBench.
func prepareCurator() (*curator, error) {
	cp, err := curatorClasspath()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zkbench-curator-")
	if err != nil {
		return nil, err
	}
	src := filepath.Join(dir, "LockBench.java")
	if err := os.WriteFile(src, lockBenchSource, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	out, err := exec.Command("javac", "-nowarn", "-cp", cp, "-d", dir, src).CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("javac LockBench.java: %v\n%s", err, out)
	}
	return &curator{dir: dir, cp: cp}, nil
}

func (c *curator) remove() { os.RemoveAll(c.dir) }

// curatorGrace bounds LockBench's start (a JVM, one session per client)
// and its exit after the window.
const curatorGrace = 90 * time.Second

// run runs LockBench for one round: one Curator client per connect string.
func (c *curator) run(ctx context.Context, o *options, conns []string, started func()) (*lockRun, error) {
	path := fmt.Sprintf("/zkbench-curator-%d-%d", time.Now().UnixNano(), rootSeq.Add(1))
	ctx, cancel := context.WithTimeout(ctx, o.warmup+o.duration+curatorGrace)
	defer cancel()
	cp, logFile := c.cp, os.Getenv(curatorLogEnv)
	args := []string{"-Xmx256m"}
	if logFile != "" {
		cp = strings.Replace(cp, "slf4j-nop.jar", "slf4j-simple.jar", 1)
		args = append(args, "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
			"-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.logFile="+logFile)
	}
	args = append(args, "-cp", c.dir+string(os.PathListSeparator)+cp, "LockBench", path,
		strconv.FormatInt(o.warmup.Milliseconds(), 10), strconv.FormatInt(o.duration.Milliseconds(), 10),
		strconv.FormatInt(o.sessionTimeout.Milliseconds(), 10))
	cmd := exec.CommandContext(ctx, "java", append(args, conns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = sysProcAttr()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("java LockBench: %w", err)
	}
	var once sync.Once
	run, perr := parseCuratorOutput(stdout, func() { once.Do(started) })
	if perr != nil {
		cmd.Process.Kill()
	}
	werr := cmd.Wait()
	if err := ctx.Err(); err != nil && perr == nil && werr != nil {
		perr = err
	}
	if err := errors.Join(perr, werr); err != nil {
		return nil, fmt.Errorf("java LockBench: %w\n%s", err, tailString(stderr.String(), 4000))
	}
	tidyCurator(ctx, conns[0], path, o.sessionTimeout)
	return run, nil
}

// tidyCurator deletes the lock's directory (a container, which the server
// may have removed already).
func tidyCurator(ctx context.Context, conn, path string, timeout time.Duration) {
	s, err := connect(ctx, strings.Split(conn, ","), timeout)
	if err != nil {
		return
	}
	defer s.close()
	removeLockDir(s.Conn, path)
}

func tailString(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
