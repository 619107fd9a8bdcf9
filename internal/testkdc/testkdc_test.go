package testkdc

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAvailableReason(t *testing.T) {
	ok, why := Available()
	if ok != (why == "") {
		t.Fatalf("Available() = %v, %q", ok, why)
	}
	if !ok && !strings.Contains(why, "apt-get install -y krb5-kdc krb5-admin-server") {
		t.Fatalf("reason does not say how to install: %q", why)
	}
}

func TestKinitWithKeytab(t *testing.T) {
	k := Start(t, "ZKRAFT.TEST")
	if !strings.HasPrefix(k.Addr, "127.0.0.1:") {
		t.Fatalf("KDC address %q is not on 127.0.0.1", k.Addr)
	}
	conf, err := os.ReadFile(k.Krb5Conf)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"default_realm = ZKRAFT.TEST", "kdc = " + k.Addr, "dns_lookup_kdc = false", "rdns = false", "udp_preference_limit = 1"} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("krb5.conf lacks %q", want)
		}
	}
	// The KDC is on 127.0.0.1 only: another local address refuses.
	_, port, _ := net.SplitHostPort(k.Addr)
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			ip, ok := a.(*net.IPNet)
			if !ok || ip.IP.IsLoopback() || ip.IP.To4() == nil {
				continue
			}
			if c, err := net.DialTimeout("tcp", net.JoinHostPort(ip.IP.String(), port), time.Second); err == nil {
				c.Close()
				t.Fatalf("KDC accepts connections on %s", ip.IP)
			}
		}
	}
	if os.Getenv("KRB5_CONFIG") == k.Krb5Conf {
		t.Fatal("Start changed the test process's environment")
	}

	keytab := k.AddPrincipal(t, "zkclient")
	kinit, err := lookPath("kinit")
	if err != nil {
		t.Skip("kinit not installed (apt-get install -y krb5-user)")
	}
	klist, _ := lookPath("klist")
	ccache := "FILE:" + filepath.Join(t.TempDir(), "ccache")
	env := append(k.Env(), "KRB5CCNAME="+ccache)

	cmd := exec.Command(kinit, "-k", "-t", keytab, "zkclient@ZKRAFT.TEST")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kinit: %v: %s", err, out)
	}
	if klist != "" {
		cmd = exec.Command(klist)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("klist: %v: %s", err, out)
		}
		if !strings.Contains(string(out), "krbtgt/ZKRAFT.TEST@ZKRAFT.TEST") {
			t.Fatalf("klist shows no TGT: %s", out)
		}
	}

	// A keytab for a principal the KDC does not know fails.
	other := Start(t, "OTHER.TEST")
	stray := other.AddPrincipal(t, "zkclient")
	cmd = exec.Command(kinit, "-k", "-t", stray, "zkclient@ZKRAFT.TEST")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("kinit with another realm's keytab succeeded: %s", out)
	}
	// Re-exporting a keytab invalidates the old one's keys.
	fresh := k.Keytab(t, "zkclient")
	cmd = exec.Command(kinit, "-k", "-t", keytab, "zkclient@ZKRAFT.TEST")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("kinit with a stale keytab succeeded: %s", out)
	}
	cmd = exec.Command(kinit, "-k", "-t", fresh, "zkclient@ZKRAFT.TEST")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kinit with the fresh keytab: %v: %s", err, out)
	}
}

func TestSkipsWithoutPrograms(t *testing.T) {
	saved := binKDC
	binKDC = "krb5kdc-not-installed"
	defer func() { binKDC = saved }()
	ok, why := Available()
	if ok || !strings.Contains(why, "krb5-kdc not installed (apt-get install -y krb5-kdc krb5-admin-server)") {
		t.Fatalf("Available() = %v, %q", ok, why)
	}
	var k *KDC
	var sub *testing.T
	t.Run("start", func(t *testing.T) {
		sub = t
		k = Start(t, "ZKRAFT.TEST")
	})
	if !sub.Skipped() || k != nil {
		t.Fatalf("Start did not skip: skipped=%v kdc=%v", sub.Skipped(), k)
	}
}
