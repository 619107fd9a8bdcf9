//go:build linux

package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestImageWithPodman builds the container image from the repository's
// own Dockerfile with podman, from local bases only (no registry is
// reached), and runs it: one container (ruok, zkcli create/get from the
// host, the HEALTHCHECK healthy), the same read-only and non-root as
// deploy/kubernetes runs it, and deploy/compose's three services on a
// podman network (a quorum, a replicated write, the leader's container
// killed and the other two still serving). It reports the image's size
// against its binaries'. Skipped where podman is not installed or cannot
// run a container. docs/deploy.md, "Building without the registries",
// gives the same steps as shell commands.
func TestImageWithPodman(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the image is not built")
	}
	pm := newPodman(t)
	t.Parallel() // it mostly waits on podman, and takes no fixed port
	start := time.Now()
	id := fmt.Sprintf("zkraft-test-%d", time.Now().UnixNano()%1e10)

	builder := pm.builderBase(t, "localhost/"+id+"-builder")
	pm.probe(t, builder)
	t.Logf("podman runs containers here with the flags %q", pm.runFlags)
	zkcliDir := t.TempDir()
	zkcliBuilt := make(chan error, 1)
	go func() { zkcliBuilt <- buildZkcli(zkcliDir) }()
	runtime := pm.runtimeBase(t, "localhost/"+id+"-runtime")
	image := pm.buildImage(t, "localhost/"+id, builder, runtime)
	t.Logf("image built in %s", time.Since(start).Round(time.Second))
	pm.reportSize(t, image, id+"-size")
	require.NoError(t, <-zkcliBuilt)
	zkcli := zkcliBin(filepath.Join(zkcliDir, "zkcli"))

	t.Run("container", func(t *testing.T) {
		name := id + "-one"
		pm.run(t, name, "-p", "127.0.0.1::2181", "-e", "ZOO_4LW_COMMANDS_WHITELIST=ruok,srvr", image)
		addr := pm.port(t, name)
		waitRuok(t, pm, name, addr)
		zkcli.create(t, addr, "/image", "from-the-host")
		require.Equal(t, "from-the-host", zkcli.get(t, addr, "/image"))
		pm.waitHealthy(t, name)
	})

	// As deploy/kubernetes/statefulset.yaml runs it: uid 65532, a
	// read-only root (with no tmpfs on /tmp or /run), no capabilities,
	// /data and /conf on volumes of their own (its PersistentVolumeClaim
	// and emptyDir), and the ConfigMap's ZOO_DATA_LOG_DIR=/data/log. Its
	// data survives a restart. (A --tmpfs on /conf would not do: podman
	// 4.3 leaves it unwritable by 65532 whatever its mode.)
	t.Run("read-only non-root", func(t *testing.T) {
		name, data, conf := id+"-ro", id+"-data", id+"-conf"
		for _, vol := range []string{data, conf} {
			pm.must(t, "volume", "create", vol)
			t.Cleanup(func() { pm.cmd("volume", "rm", "-f", vol) })
		}
		pm.run(t, name, "--read-only", "--read-only-tmpfs=false", "--user", "65532:65532", "--cap-drop", "ALL",
			"--security-opt", "no-new-privileges", "-v", data+":/data", "-v", conf+":/conf",
			"-e", "ZOO_DATA_DIR=/data", "-e", "ZOO_DATA_LOG_DIR=/data/log", "-e", "ZOO_CONF_DIR=/conf",
			"-e", "ZOO_4LW_COMMANDS_WHITELIST=ruok,srvr", "-p", "127.0.0.1::2181", image)
		require.Equal(t, "true", pm.must(t, "inspect", "--format", "{{.HostConfig.ReadonlyRootfs}}", name))
		addr := pm.port(t, name)
		waitRuok(t, pm, name, addr)
		users := pm.must(t, "top", name, "huser", "user")
		require.Regexp(t, `(?m)^65532\s+nonroot$`, users, "the server runs as 65532 (nonroot)")
		zkcli.create(t, addr, "/ro", "kept")
		pm.waitHealthy(t, name)

		pm.must(t, "stop", "-t", "20", name)
		pm.must(t, "start", name)
		addr = pm.port(t, name)
		waitRuok(t, pm, name, addr)
		require.Equal(t, "kept", zkcli.get(t, addr, "/ro"), "the data on the volume survives a restart")
	})

	t.Run("compose ensemble", func(t *testing.T) {
		pm.composeEnsemble(t, id, image, zkcli)
	})
	t.Logf("TestImageWithPodman took %s", time.Since(start).Round(time.Second))
}

// podman runs the podman command with the flags that let a container run
// on this machine (found by probe).
type podman struct {
	bin       string
	buildArgs []string // flags of podman build and podman run both: --runtime, --ulimit
	runFlags  []string
}

func newPodman(t *testing.T) *podman {
	bin, err := exec.LookPath("podman")
	if err != nil {
		t.Skip("podman is not installed (apt-get install podman): the image is not built or run")
	}
	if out, err := exec.Command(bin, "info").CombinedOutput(); err != nil {
		t.Skipf("podman info fails, so podman cannot run containers here: %s", lastLine(out))
	}
	return &podman{bin: bin}
}

// cmd runs podman, for at most two minutes.
func (p *podman) cmd(args ...string) (string, error) {
	return p.cmdWithin(2*time.Minute, args...)
}

// cmdWithin runs podman, interrupting it (so that it cleans up) when d
// passes, and killing it 30s later.
func (p *podman) cmdWithin(d time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.bin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%v (interrupted after %s)", err, d)
	}
	return strings.TrimSpace(string(out)), err
}

func (p *podman) must(t *testing.T, args ...string) string {
	t.Helper()
	out, err := p.cmd(args...)
	require.NoError(t, err, "podman %s:\n%s", strings.Join(args, " "), out)
	return out
}

// probe finds the flags that let `podman run` start a container: none,
// else ulimits no higher than this process's (podman's defaults, e.g.
// nproc=32768, fail where it may not raise them), else those with the
// runc runtime as well (crun refuses hybrid cgroup v1/v2 hierarchies).
// It skips the test when no set works.
func (p *podman) probe(t *testing.T, image string) {
	t.Helper()
	nofile, nproc := hardLimit("Max open files", 1<<20), hardLimit("Max processes", 4096)
	ulimits := []string{"--ulimit", fmt.Sprintf("nofile=%d:%d", nofile, nofile), "--ulimit", fmt.Sprintf("nproc=%d:%d", nproc, nproc)}
	candidates := [][]string{nil, ulimits, append([]string{"--runtime", "runc"}, ulimits...)}
	var tried []string
	for _, flags := range candidates {
		args := append(append([]string{"run", "--rm"}, flags...), image, "/bin/sh", "-c", "echo ok")
		out, err := p.cmd(args...)
		if err == nil && out == "ok" {
			p.buildArgs, p.runFlags = flags, flags
			return
		}
		tried = append(tried, fmt.Sprintf("%q: %s", flags, lastLine([]byte(out))))
	}
	t.Skipf("podman cannot run a container here, so the image is not built; tried:\n%s", strings.Join(tried, "\n"))
}

// hardLimit is this process's hard limit named as /proc/self/limits
// names it, at most max.
func hardLimit(name string, max uint64) uint64 {
	raw, _ := os.ReadFile("/proc/self/limits")
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok {
			if f := strings.Fields(rest); len(f) >= 2 {
				if n, err := strconv.ParseUint(f[1], 10, 64); err == nil && n < max {
					return n
				}
			}
		}
	}
	return max
}

// tarEntry is one file or directory of a base image made FROM scratch.
type tarEntry struct {
	mode     int64
	uid, gid int
	dir      bool
	body     []byte
}

// importBase makes an image of entries (paths without the leading
// slash) with podman import, and removes it when the test ends.
func (p *podman) importBase(t *testing.T, name string, entries map[string]tarEntry, changes ...string) {
	t.Helper()
	// Every parent directory is an entry of its own, before its files.
	for path := range entries {
		for dir := filepath.Dir(path); dir != "."; dir = filepath.Dir(dir) {
			if _, ok := entries[dir]; !ok {
				entries[dir] = tarEntry{dir: true, mode: 0o755}
			}
		}
	}
	paths := make([]string, 0, len(entries))
	for path := range entries {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, path := range paths {
		e := entries[path]
		h := &tar.Header{Name: path, Mode: e.mode, Uid: e.uid, Gid: e.gid, ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg, Size: int64(len(e.body))}
		if e.dir {
			h.Name, h.Typeflag, h.Size = path+"/", tar.TypeDir, 0
		}
		require.NoError(t, tw.WriteHeader(h))
		_, err := tw.Write(e.body)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	args := []string{"import"}
	for _, c := range changes {
		args = append(args, "--change", c)
	}
	cmd := exec.Command(p.bin, append(args, "-", name)...)
	cmd.Stdin = &buf
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "podman import %s:\n%s", name, out)
	t.Cleanup(func() { p.cmd("rmi", "-f", name) })
}

// hostFile is a file of this machine as a tarEntry (its target's
// content, for a symbolic link).
func hostFile(t *testing.T, path string, mode int64) tarEntry {
	t.Helper()
	body, err := os.ReadFile(path)
	require.NoError(t, err)
	return tarEntry{mode: mode, body: body}
}

// builderBase is the image the Dockerfile's build stage runs FROM in
// place of golang: this machine's sh, date and mkdir with the shared
// libraries they load, and the environment of an offline Go. Go itself
// (GOROOT), the module cache and the build cache are mounted from this
// machine when the image is built.
func (p *podman) builderBase(t *testing.T, name string) string {
	t.Helper()
	entries := map[string]tarEntry{
		"tmp":     {dir: true, mode: 0o1777},
		"root":    {dir: true, mode: 0o700},
		"go":      {dir: true, mode: 0o755},
		"gocache": {dir: true, mode: 0o755},
	}
	for _, tool := range []string{"sh", "date", "mkdir"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("no %s on this machine to make the local Go base with: %v", tool, err)
		}
		entries["bin/"+tool] = hostFile(t, path, 0o755)
		entries["usr/bin/"+tool] = hostFile(t, path, 0o755)
		for _, lib := range sharedLibraries(t, path) {
			entries[strings.TrimPrefix(lib, "/")] = hostFile(t, lib, 0o755)
		}
	}
	p.importBase(t, name, entries,
		"ENV PATH=/usr/local/go/bin:/go/bin:/usr/local/bin:/usr/bin:/bin",
		"ENV GOPATH=/go", "ENV GOCACHE=/gocache", "ENV GOPROXY=off", "ENV GOTOOLCHAIN=local", "ENV HOME=/root")
	return name
}

// sharedLibraries lists what ldd says bin loads (none for a static
// binary).
func sharedLibraries(t *testing.T, bin string) []string {
	t.Helper()
	out, err := exec.Command("ldd", bin).Output()
	if err != nil {
		if _, lookErr := exec.LookPath("ldd"); lookErr != nil {
			t.Skipf("no ldd on this machine to find what %s loads", bin)
		}
		return nil // "not a dynamic executable"
	}
	var libs []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[1] == "=>" && strings.HasPrefix(f[2], "/"):
			libs = append(libs, f[2])
		case len(f) >= 1 && strings.HasPrefix(f[0], "/"):
			libs = append(libs, f[0])
		}
	}
	return libs
}

// runtimeBase stands for gcr.io/distroless/static-debian12:nonroot: the
// CA certificates, /etc/passwd and /etc/group with root, nobody and
// nonroot (65532), nsswitch.conf, /tmp and nonroot's home, and its user,
// working directory and environment.
func (p *podman) runtimeBase(t *testing.T, name string) string {
	t.Helper()
	entries := map[string]tarEntry{
		"tmp":          {dir: true, mode: 0o1777},
		"home/nonroot": {dir: true, mode: 0o700, uid: 65532, gid: 65532},
		"etc/passwd": {mode: 0o644, body: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
			"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		"etc/group":         {mode: 0o644, body: []byte("root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n")},
		"etc/nsswitch.conf": {mode: 0o644, body: []byte("hosts: files dns\n")},
	}
	certs := tarEntry{mode: 0o644}
	for _, path := range []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"} {
		if _, err := os.Stat(path); err == nil {
			certs = hostFile(t, path, 0o644)
			break
		}
	}
	if len(certs.body) == 0 {
		t.Log("no CA certificate bundle on this machine: the runtime base's is empty")
	}
	entries["etc/ssl/certs/ca-certificates.crt"] = certs
	p.importBase(t, name, entries, "USER 65532:65532", "WORKDIR /home/nonroot",
		"ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt")
	return name
}

// buildImage builds the repository's Dockerfile from the two local bases,
// in the docker format (the OCI format has no HEALTHCHECK), with no
// network, keeping no intermediate image. GOROOT and the module cache are mounted read-only,
// the build cache read-write (so that a second run compiles little).
func (p *podman) buildImage(t *testing.T, tag, builder, runtime string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		require.NoError(t, err)
		return strings.TrimSpace(string(out))
	}
	fillModuleCache(t, root)
	args := append([]string{"build", "--layers=false", "--format", "docker", "--pull=never", "--network", "none"}, p.buildArgs...)
	args = append(args, "--build-arg", "BUILDER="+builder, "--build-arg", "BASE="+runtime,
		"-v", goEnv("GOROOT")+":/usr/local/go:ro", "-v", goEnv("GOMODCACHE")+":/go/pkg/mod:ro")
	if cache := goEnv("GOCACHE"); filepath.IsAbs(cache) {
		if fi, err := os.Stat(cache); err == nil && fi.IsDir() {
			args = append(args, "-v", cache+":/gocache")
		}
	}
	t.Cleanup(func() {
		p.cmd("rmi", "-f", tag)
		// What an interrupted build may leave: its working containers.
		for _, base := range []string{builder, runtime} {
			p.cmd("rm", "-f", strings.TrimPrefix(base, "localhost/")+"-working-container")
		}
	})
	// A cold build (a build cache without this tree's packages) takes
	// 1-2 minutes on an idle machine with two CPUs.
	out, err := p.cmdWithin(8*time.Minute, append(args, "-t", tag, root)...)
	require.NoError(t, err, "podman build:\n%s", out)
	return tag
}

// fillModuleCache runs go mod download in root on this machine. The
// build runs without a network on this machine's module cache, and the
// Dockerfile's go mod download wants the go.mod of every module in the
// graph, more than building the packages here fetched (on a fresh machine
// armon/go-metrics's requirement on DataDog/datadog-go was missing).
func fillModuleCache(t *testing.T, root string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "mod", "download")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("the image's build needs every module go mod download fetches, offline, and go mod download failed here (no module proxy?): %v\n%s", err, out)
	}
}

// reportSize logs the image's size against that of the two binaries in
// it, and fails if the rest (the base, directories, metadata) passes
// 4 MiB: the image should stay close to the binaries' size.
func (p *podman) reportSize(t *testing.T, image, name string) {
	t.Helper()
	size, err := strconv.ParseInt(p.must(t, "image", "inspect", "--format", "{{.Size}}", image), 10, 64)
	require.NoError(t, err)
	require.Contains(t, p.must(t, "image", "inspect", "--format", "{{json .HealthCheck}}", image), "healthcheck",
		"the image keeps the Dockerfile's HEALTHCHECK")
	p.must(t, "create", "--name", name, image)
	t.Cleanup(func() { p.cmd("rm", "-f", "-v", name) })
	dir := t.TempDir()
	var bins int64
	sizes := map[string]int64{}
	for _, bin := range []string{"zkserver", "zkcli"} {
		p.must(t, "cp", name+":/usr/local/bin/"+bin, filepath.Join(dir, bin))
		fi, err := os.Stat(filepath.Join(dir, bin))
		require.NoError(t, err)
		sizes[bin], bins = fi.Size(), bins+fi.Size()
	}
	t.Logf("image size %d bytes (%.1f MB); zkserver %d and zkcli %d bytes, %d together: the image is %.1f%% more (%d bytes)",
		size, float64(size)/1e6, sizes["zkserver"], sizes["zkcli"], bins, 100*float64(size-bins)/float64(bins), size-bins)
	require.Less(t, size-bins, int64(4<<20), "the image should be little more than its two binaries")
}

// run starts a detached container that the test removes (with its
// anonymous volumes) when it ends, printing its logs if it failed.
func (p *podman) run(t *testing.T, name string, args ...string) {
	t.Helper()
	full := append(append([]string{"run", "-d", "--name", name}, p.runFlags...), args...)
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := p.cmd("logs", name)
			t.Logf("logs of container %s:\n%s", name, logs)
		}
		p.cmd("rm", "-f", "-v", "-t", "0", name)
	})
	p.must(t, full...)
}

// port is the host address of the container's published client port.
func (p *podman) port(t *testing.T, name string) string {
	t.Helper()
	out := p.must(t, "port", name, "2181/tcp")
	addr := strings.TrimSpace(strings.Split(out, "\n")[0])
	require.True(t, strings.HasPrefix(addr, "127.0.0.1:"), "published on 127.0.0.1 only: %q", addr)
	return addr
}

// waitHealthy runs the image's HEALTHCHECK (podman without systemd runs
// none by itself) until it passes, then checks the container's status.
func (p *podman) waitHealthy(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := p.cmd("healthcheck", "run", name)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the health check did not pass within 60s: %s", name, out)
		}
		time.Sleep(time.Second) // retry interval of the health check
	}
	require.Equal(t, "healthy", p.must(t, "inspect", "--format", "{{.State.Health.Status}}", name))
}

// waitRuok waits until the server answers ruok with imok on addr.
func waitRuok(t *testing.T, p *podman, name, addr string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got, err := fourLetterWord(addr, "ruok")
		if err == nil && got == "imok" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s on %s: no imok within 60s (%q, %v)", name, addr, got, err)
		}
		time.Sleep(200 * time.Millisecond) // retry interval of the condition above
	}
}

func fourLetterWord(addr, word string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, word); err != nil {
		return "", err
	}
	b, err := io.ReadAll(c)
	return string(b), err
}

// zkcliBin is the zkcli binary built on the host.
type zkcliBin string

// buildZkcli builds cmd/zkcli into dir (while the image builds).
func buildZkcli(dir string) error {
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "zkcli"), "../zkcli").CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build ../zkcli: %v\n%s", err, out)
	}
	return nil
}

func (z zkcliBin) run(servers string, args ...string) (string, error) {
	out, err := exec.Command(string(z), append([]string{"-server", servers, "-timeout", "10s"}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (z zkcliBin) create(t *testing.T, servers, path, data string) {
	t.Helper()
	out, err := z.run(servers, "create", path, data)
	require.NoError(t, err, "zkcli create %s through %s: %s", path, servers, out)
}

func (z zkcliBin) get(t *testing.T, servers, path string) string {
	t.Helper()
	out, err := z.run(servers, "get", path)
	require.NoError(t, err, "zkcli get %s through %s: %s", path, servers, out)
	return out
}

// composeService is the part of a Compose service the test translates
// into podman run flags.
type composeService struct {
	Hostname    string    `yaml:"hostname"`
	Environment yaml.Node `yaml:"environment"`
}

// composeEnsemble runs deploy/compose/docker-compose.yml's services as
// podman containers on a network of their own: the service name as
// the container's network alias, its hostname and environment, the
// client port published on 127.0.0.1 (a free port, not the file's
// 2181-2183) and no restart policy, so that a killed leader stays dead.
func (p *podman) composeEnsemble(t *testing.T, id, image string, zkcli zkcliBin) {
	raw, err := os.ReadFile("../../deploy/compose/docker-compose.yml")
	require.NoError(t, err)
	var file struct {
		Services map[string]composeService `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &file))
	require.Len(t, file.Services, 3)
	network := id + "-net"
	p.must(t, "network", "create", network)
	t.Cleanup(func() { p.cmd("network", "rm", "-f", network) })

	names := make([]string, 0, len(file.Services))
	for name := range file.Services {
		names = append(names, name)
	}
	sort.Strings(names)
	addrs := map[string]string{}
	for _, name := range names {
		svc := file.Services[name]
		args := []string{"--network", network, "--network-alias", name, "-p", "127.0.0.1::2181"}
		if svc.Hostname != "" {
			args = append(args, "--hostname", svc.Hostname)
		}
		env := composeEnvironment(t, svc.Environment)
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			args = append(args, "-e", k+"="+env[k])
		}
		p.run(t, id+"-"+name, append(args, image)...)
		addrs[name] = p.port(t, id+"-"+name)
	}

	leader, followers := waitQuorum(t, addrs, names)
	zkcli.create(t, addrs[followers[0]], "/compose", "replicated")
	waitData(t, zkcli, addrs[followers[1]], "/compose", "replicated")
	waitData(t, zkcli, addrs[leader], "/compose", "replicated")
	for _, name := range names {
		p.waitHealthy(t, id+"-"+name)
	}

	p.must(t, "kill", id+"-"+leader)
	t.Logf("killed %s, the leader", leader)
	delete(addrs, leader)
	newLeader, rest := waitQuorum(t, addrs, followers)
	require.Len(t, rest, 1)
	zkcli.create(t, addrs[rest[0]], "/after", "two-of-three")
	waitData(t, zkcli, addrs[newLeader], "/after", "two-of-three")
	waitData(t, zkcli, addrs[newLeader], "/compose", "replicated")
}

// composeEnvironment reads a service's environment in either Compose
// form: a mapping, or a list of NAME=value.
func composeEnvironment(t *testing.T, n yaml.Node) map[string]string {
	t.Helper()
	env := map[string]string{}
	switch n.Kind {
	case yaml.MappingNode:
		require.NoError(t, n.Decode(&env))
	case yaml.SequenceNode:
		var list []string
		require.NoError(t, n.Decode(&list))
		for _, kv := range list {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
	}
	return env
}

// waitQuorum waits until srvr gives one leader and followers for the
// rest of the servers named (addrs by service name), and returns them.
func waitQuorum(t *testing.T, addrs map[string]string, names []string) (leader string, followers []string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		modes := map[string]string{}
		leader, followers = "", nil
		for _, name := range names {
			if addr, ok := addrs[name]; ok {
				modes[name] = srvrMode(addr)
				switch modes[name] {
				case "leader":
					leader = name
				case "follower":
					followers = append(followers, name)
				}
			}
		}
		if leader != "" && len(followers) == len(modes)-1 {
			t.Logf("quorum: %v", modes)
			return leader, followers
		}
		if time.Now().After(deadline) {
			t.Fatalf("no quorum within 90s: %v", modes)
		}
		time.Sleep(500 * time.Millisecond) // retry interval of the condition above
	}
}

// srvrMode is the Mode line of srvr ("" while the server does not answer).
func srvrMode(addr string) string {
	out, err := fourLetterWord(addr, "srvr")
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if mode, ok := strings.CutPrefix(sc.Text(), "Mode: "); ok {
			return mode
		}
	}
	return ""
}

// waitData waits until a read through addr finds path holding want (a
// follower may serve a read before it has applied a write it forwarded).
func waitData(t *testing.T, zkcli zkcliBin, addr, path, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := zkcli.run(addr, "get", path)
		if err == nil && got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("get %s through %s: %q, %v; want %q", path, addr, got, err, want)
		}
		time.Sleep(200 * time.Millisecond) // retry interval of the condition above
	}
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
