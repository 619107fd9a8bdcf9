package tlsconf

import (
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zkraft/zkraft/internal/testlog"
)

// presented returns the serial of the certificate the server shows.
func presented(t *testing.T, f *fixture, addr string, res <-chan serverResult) string {
	t.Helper()
	st, _ := mustHandshake(t, addr, f.clientTLS(&f.client), res)
	return st.PeerCertificates[0].SerialNumber.String()
}

func TestReloadPresentsNewCertificate(t *testing.T) {
	f := newFixture(t)
	src := load(t, f.config(t, nil), nil)
	addr, res := serve(t, src.ServerConfig())
	if got := presented(t, f, addr, res); got != f.server.cert.SerialNumber.String() {
		t.Fatalf("serves %s before the reload", got)
	}

	renewed := issue(t, serverSpec("server"), &f.ca)
	replaceFile(t, f.keyStore, pemKeyStoreBytes(t, renewed, f.ca.cert))
	if err := src.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := presented(t, f, addr, res); got != renewed.cert.SerialNumber.String() {
		t.Errorf("serves %s after the reload, want the renewed %s", got, renewed.cert.SerialNumber)
	}
}

func TestFailedReloadKeepsOldMaterial(t *testing.T) {
	f := newFixture(t)
	src := load(t, f.config(t, nil), nil)
	addr, res := serve(t, src.ServerConfig())
	good := pemKeyStoreBytes(t, f.server, f.ca.cert)

	for name, data := range map[string][]byte{
		"half-written": good[:len(good)/2],
		"empty":        nil,
		"garbage":      []byte("-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n"),
	} {
		if err := os.WriteFile(f.keyStore, data, 0o600); err != nil {
			t.Fatal(err)
		}
		err := src.Reload()
		if err == nil || !strings.Contains(err.Error(), f.keyStore) {
			t.Errorf("%s: Reload = %v; want an error naming %s", name, err, f.keyStore)
		}
		if got := presented(t, f, addr, res); got != f.server.cert.SerialNumber.String() {
			t.Errorf("%s: serves %s, want the old certificate", name, got)
		}
	}
	if err := os.Remove(f.keyStore); err != nil {
		t.Fatal(err)
	}
	if err := src.Reload(); err == nil {
		t.Error("Reload of a missing file succeeded")
	}
	presented(t, f, addr, res)
}

func TestReloadTrustStore(t *testing.T) {
	f := newFixture(t)
	src := load(t, f.config(t, nil), nil)
	addr, res := serve(t, src.ServerConfig())
	dialer := load(t, f.quorumConfig(t, nil), nil)
	dial := dialer.ClientConfigFor("127.0.0.1") // kept across the reload
	mustHandshake(t, addr, f.clientTLS(&f.client), res)
	mustHandshake(t, addr, dial, res)

	// Trust only the other CA: our client is now a stranger, and the
	// stranger is welcome, on the config handed out before the reload.
	replaceFile(t, f.caStore, pemCert(f.otherCA.cert))
	if err := src.Reload(); err != nil {
		t.Fatal(err)
	}
	mustFail(t, addr, f.clientTLS(&f.client), res)
	mustHandshake(t, addr, f.clientTLS(&f.stranger), res)

	if err := dialer.Reload(); err != nil {
		t.Fatal(err)
	}
	_, cerr, _ := handshake(t, addr, dial, res)
	if cerr == nil {
		t.Error("the dialler still trusts the server after its trust store dropped the CA")
	}
}

func TestWatcherReloadsChangedFiles(t *testing.T) {
	f := newFixture(t)
	var logs testlog.Buffer
	cfg := f.config(t, nil)
	cfg.PollInterval = 10 * time.Millisecond
	src := load(t, cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	addr, res := serve(t, src.ServerConfig())

	renewed := issue(t, serverSpec("server"), &f.ca)
	replaceFile(t, f.keyStore, pemKeyStoreBytes(t, renewed, f.ca.cert))
	waitFor(t, "the renewed certificate to be served", func() bool {
		return presented(t, f, addr, res) == renewed.cert.SerialNumber.String()
	})
	if logs.Count("key material reloaded") != 1 {
		t.Errorf("want one reload logged:\n%s", logs.String())
	}

	// A half-written file: the watcher logs once and keeps serving.
	good := pemKeyStoreBytes(t, renewed, f.ca.cert)
	if err := os.WriteFile(f.keyStore, good[:len(good)/3], 0o600); err != nil {
		t.Fatal(err)
	}
	const failed = "reloading key material failed"
	waitFor(t, "the failed reload to be logged", func() bool { return logs.Count(failed) > 0 })
	after := src.polls.Load()
	waitFor(t, "more polls", func() bool { return src.polls.Load() >= after+5 })
	if n := logs.Count(failed); n != 1 {
		t.Errorf("failed reload logged %d times, want once", n)
	}
	if got := presented(t, f, addr, res); got != renewed.cert.SerialNumber.String() {
		t.Errorf("serves %s during the bad file, want %s", got, renewed.cert.SerialNumber)
	}

	// Finishing the write recovers without anyone calling Reload.
	third := issue(t, serverSpec("server"), &f.ca)
	if err := os.WriteFile(f.keyStore, pemKeyStoreBytes(t, third, f.ca.cert), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the third certificate", func() bool {
		return presented(t, f, addr, res) == third.cert.SerialNumber.String()
	})
}

func TestWatcherReloadsPasswordFile(t *testing.T) {
	f := newFixture(t)
	pw := writeFile(t, f.dir, "pw", []byte("one\n"))
	ks := writeFile(t, f.dir, "enc.pem", append(encryptPKCS8(t, f.server.key, "one"), pemCerts(f.server.cert, f.ca.cert)...))
	cfg := f.config(t, nil)
	cfg.KeyStore = Store{Location: ks, PasswordPath: pw}
	cfg.PollInterval = 10 * time.Millisecond
	src := load(t, cfg, nil)
	addr, res := serve(t, src.ServerConfig())

	// Rotate key and password: whichever file lands first, the pair is
	// loaded once both are in place.
	renewed := issue(t, serverSpec("server"), &f.ca)
	replaceFile(t, pw, []byte("two\n"))
	replaceFile(t, ks, append(encryptPKCS8(t, renewed.key, "two"), pemCerts(renewed.cert, f.ca.cert)...))
	waitFor(t, "the re-encrypted key", func() bool {
		return presented(t, f, addr, res) == renewed.cert.SerialNumber.String()
	})
}

func TestCloseStopsWatcher(t *testing.T) {
	f := newFixture(t)
	cfg := f.config(t, nil)
	cfg.PollInterval = time.Millisecond
	src, err := Load(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a poll", func() bool { return src.polls.Load() > 0 })
	src.Close()
	src.Close() // idempotent
	n := src.polls.Load()
	select {
	case <-src.done:
	default:
		t.Fatal("watcher still running after Close")
	}
	if src.polls.Load() != n {
		t.Error("polled after Close")
	}
	if err := src.Reload(); err != nil {
		t.Errorf("Reload after Close: %v", err)
	}
}
