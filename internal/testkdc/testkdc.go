package testkdc

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The MIT programs the KDC needs, looked up on PATH and then in the
// directories Debian installs them to.
var (
	binKDC    = "krb5kdc"
	binDBUtil = "kdb5_util"
	binKadmin = "kadmin.local"
)

// Enctypes are the key types the realm gives its principals: the
// AES-SHA1 pair that MIT, the JDK and gokrb5 all support.
const Enctypes = "aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal"

// lookPath finds an MIT program on PATH or in /usr/sbin, /usr/bin.
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", name)
}

// Available reports whether the MIT KDC programs are installed, and if
// not a reason to pass to t.Skip.
func Available() (bool, string) {
	for _, b := range []string{binKDC, binDBUtil, binKadmin} {
		if _, err := lookPath(b); err != nil {
			return false, "krb5-kdc not installed (apt-get install -y krb5-kdc krb5-admin-server): " + err.Error()
		}
	}
	return true, ""
}

// KDC is a running test realm.
type KDC struct {
	Realm    string // the realm name, e.g. "ZKRAFT.TEST"
	Addr     string // the KDC's 127.0.0.1:port, for TCP and UDP
	Krb5Conf string // path of a krb5.conf whose default realm is Realm
	KDCConf  string // path of the KDC's kdc.conf
	Dir      string // the temporary directory holding everything

	mu     sync.Mutex
	serial int
	log    string // path of the KDC's log file
}

// Env is os.Environ() plus KRB5_CONFIG and KRB5_KDC_PROFILE naming this
// realm's files: the environment for a child process that should use it.
func (k *KDC) Env() []string {
	return append(os.Environ(), "KRB5_CONFIG="+k.Krb5Conf, "KRB5_KDC_PROFILE="+k.KDCConf, "LC_ALL=C")
}

// Start creates the realm in a temporary directory and runs its KDC until
// the test ends. It skips the test when the programs are missing and fails
// it when the KDC does not come up.
func Start(t testing.TB, realm string) *KDC {
	t.Helper()
	if ok, why := Available(); !ok {
		t.Skip(why)
	}
	var lastErr error
	// Another process may take the free port between our probe and the
	// KDC's bind; try a few ports.
	for attempt := 0; attempt < 3; attempt++ {
		k, err := start(t, realm)
		if err == nil {
			return k
		}
		lastErr = err
	}
	t.Fatalf("testkdc: %v", lastErr)
	return nil
}

func start(t testing.TB, realm string) (*KDC, error) {
	dir := t.TempDir()
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	k := &KDC{
		Realm:    realm,
		Addr:     net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		Krb5Conf: filepath.Join(dir, "krb5.conf"),
		KDCConf:  filepath.Join(dir, "kdc.conf"),
		Dir:      dir,
		log:      filepath.Join(dir, "kdc.log"),
	}
	if err := k.writeConfig(port); err != nil {
		return nil, err
	}
	if _, err := k.run(binDBUtil, "-r", realm, "create", "-s", "-P", "testkdc-master-"+strconv.Itoa(port)); err != nil {
		return nil, err
	}
	kdc, _ := lookPath(binKDC)
	cmd := exec.Command(kdc, "-n", "-r", realm, "-P", filepath.Join(dir, "krb5kdc.pid"))
	cmd.Env = k.Env()
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start krb5kdc: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	if err := waitListening(k.Addr, exited, 15*time.Second); err != nil {
		stop()
		logText, _ := os.ReadFile(k.log)
		return nil, fmt.Errorf("krb5kdc on %s: %w; output: %s; log: %s", k.Addr, err, out.String(), logText)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			stop()
		}
	})
	return k, nil
}

// freePort returns a port that is free for TCP and UDP on 127.0.0.1 at
// the moment of the call.
func freePort() (int, error) {
	for i := 0; i < 20; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", l.Addr().String())
		l.Close()
		if err != nil {
			continue
		}
		u.Close()
		return port, nil
	}
	return 0, errors.New("no free port on 127.0.0.1")
}

// waitListening waits until addr accepts a TCP connection, the process
// exits, or the timeout passes.
func waitListening(addr string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return errors.New("krb5kdc exited")
		case <-deadline.C:
			return fmt.Errorf("not listening after %v: %w", timeout, err)
		case <-tick.C:
		}
	}
}

func (k *KDC) writeConfig(port int) error {
	// kdc_listen and kdc_tcp_listen (krb5 1.15 and later) bind to
	// 127.0.0.1 only; kdc_ports would listen on every address.
	kdcConf := fmt.Sprintf(`[kdcdefaults]
	kdc_listen = 127.0.0.1:%[1]d
	kdc_tcp_listen = 127.0.0.1:%[1]d

[realms]
	%[2]s = {
		database_name = %[3]s/principal
		key_stash_file = %[3]s/stash
		acl_file = %[3]s/kadm5.acl
		kdc_listen = 127.0.0.1:%[1]d
		kdc_tcp_listen = 127.0.0.1:%[1]d
		max_life = 1h 0m 0s
		max_renewable_life = 1h 0m 0s
		master_key_type = aes256-cts-hmac-sha1-96
		supported_enctypes = %[4]s
	}

[logging]
	kdc = FILE:%[5]s
	admin_server = FILE:%[3]s/kadmin.log
	default = FILE:%[5]s
`, port, k.Realm, k.Dir, Enctypes, k.log)
	krb5Conf := fmt.Sprintf(`[libdefaults]
	default_realm = %[1]s
	dns_lookup_kdc = false
	dns_lookup_realm = false
	rdns = false
	dns_canonicalize_hostname = false
	udp_preference_limit = 1
	ticket_lifetime = 1h
	forwardable = false
	default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
	default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
	permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96

[realms]
	%[1]s = {
		kdc = %[2]s
		admin_server = %[2]s
	}

[domain_realm]
	localhost = %[1]s
	.localhost = %[1]s
`, k.Realm, k.Addr)
	if err := os.WriteFile(k.KDCConf, []byte(kdcConf), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(k.Dir, "kadm5.acl"), []byte("*/admin@"+k.Realm+" *\n"), 0o600); err != nil {
		return err
	}
	return os.WriteFile(k.Krb5Conf, []byte(krb5Conf), 0o644)
}

// run runs one of the MIT programs with the realm's environment.
func (k *KDC) run(name string, args ...string) (string, error) {
	p, err := lookPath(name)
	if err != nil {
		return "", err
	}
	cmd := exec.Command(p, args...)
	cmd.Env = k.Env()
	cmd.Dir = k.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Kadmin runs one kadmin.local query against the realm's database.
func (k *KDC) Kadmin(t testing.TB, query string) string {
	t.Helper()
	out, err := k.run(binKadmin, "-r", k.Realm, "-q", query)
	if err != nil {
		t.Fatalf("testkdc: %v", err)
	}
	return out
}

// Principal qualifies name with the realm unless it already has one.
func (k *KDC) Principal(name string) string {
	if strings.Contains(name, "@") {
		return name
	}
	return name + "@" + k.Realm
}

// AddPrincipal creates the principal name (qualified with the realm when
// it has none) with a random key and returns the path of a new keytab
// holding its keys.
func (k *KDC) AddPrincipal(t testing.TB, name string) (keytab string) {
	t.Helper()
	p := k.Principal(name)
	k.Kadmin(t, "addprinc -randkey "+p)
	return k.Keytab(t, name)
}

// Keytab exports the current keys of an existing principal to a new
// keytab file and returns its path. Exporting re-randomizes the keys (as
// kadmin's ktadd does), so older keytabs of the principal stop working.
func (k *KDC) Keytab(t testing.TB, name string) string {
	t.Helper()
	k.mu.Lock()
	k.serial++
	path := filepath.Join(k.Dir, fmt.Sprintf("keytab-%d", k.serial))
	k.mu.Unlock()
	k.Kadmin(t, "ktadd -k "+path+" "+k.Principal(name))
	return path
}
