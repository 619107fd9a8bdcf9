package admin

import (
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// keytoolPKI is a CA and an AdminServer certificate (localhost and
// 127.0.0.1) made with the JDK's keytool, as an operator of Apache
// ZooKeeper would: a PKCS#12 key store holding the key and its chain, a
// PKCS#12 trust store holding the CA, both behind storePass.
type keytoolPKI struct {
	keyStore, trustStore string
	roots                *x509.CertPool
}

const storePass = "zkraft-admin"

// quorumKeys are the zoo.cfg keys that hand p's stores to the AdminServer.
func (p keytoolPKI) quorumKeys() map[string]string {
	return map[string]string{
		"ssl.quorum.keyStore.location":   p.keyStore,
		"ssl.quorum.keyStore.password":   storePass,
		"ssl.quorum.trustStore.location": p.trustStore,
		"ssl.quorum.trustStore.password": storePass,
	}
}

// newKeytoolPKI makes the stores in a temporary directory, skipping the
// test without keytool. Independent keytool runs go side by side: each
// is a JVM start (about half a second).
func newKeytoolPKI(t *testing.T) keytoolPKI {
	t.Helper()
	if _, err := exec.LookPath("keytool"); err != nil {
		t.Skip("keytool not on PATH (it comes with a JDK or JRE: apt-get install -y default-jre-headless)")
	}
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	genKey := func(alias, dname, store string, ext ...string) []string {
		args := []string{"-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1",
			"-dname", dname, "-validity", "2", "-keystore", in(store), "-storetype", "PKCS12", "-storepass", storePass}
		return append(args, ext...)
	}
	keytool(t, genKey("ca", "CN=zkraft admin CA", "ca.p12", "-ext", "bc:c"),
		genKey("admin", "CN=localhost", "admin.p12"))

	var wg sync.WaitGroup
	var pipeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		pipeErr = keytoolPipe([]string{"-certreq", "-alias", "admin", "-keystore", in("admin.p12"), "-storepass", storePass},
			[]string{"-gencert", "-rfc", "-alias", "ca", "-keystore", in("ca.p12"), "-storepass", storePass,
				"-ext", "san=dns:localhost,ip:127.0.0.1", "-validity", "2", "-outfile", in("admin.crt")})
	}()
	keytool(t, []string{"-exportcert", "-rfc", "-alias", "ca", "-keystore", in("ca.p12"), "-storepass", storePass, "-file", in("ca.pem")})
	wg.Wait()
	require.NoError(t, pipeErr)

	caPEM, err := os.ReadFile(in("ca.pem"))
	require.NoError(t, err)
	leaf, err := os.ReadFile(in("admin.crt"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in("chain.pem"), append(leaf, caPEM...), 0o600))
	keytool(t,
		[]string{"-importcert", "-noprompt", "-alias", "admin", "-file", in("chain.pem"), "-keystore", in("admin.p12"), "-storepass", storePass},
		[]string{"-importcert", "-noprompt", "-alias", "ca", "-file", in("ca.pem"), "-keystore", in("trust.p12"),
			"-storetype", "PKCS12", "-storepass", storePass})

	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(caPEM), "keytool's CA certificate")
	return keytoolPKI{keyStore: in("admin.p12"), trustStore: in("trust.p12"), roots: roots}
}

// keytoolCmd is keytool with args, its JVM tuned for a short run.
func keytoolCmd(args []string) *exec.Cmd {
	return exec.Command("keytool", append([]string{"-J-XX:TieredStopAtLevel=1"}, args...)...)
}

// keytool runs one keytool per argument list, side by side, and fails the
// test with the output of any that fails.
func keytool(t *testing.T, runs ...[]string) {
	t.Helper()
	errs := make([]string, len(runs))
	var wg sync.WaitGroup
	for i, args := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := keytoolCmd(args).CombinedOutput(); err != nil {
				errs[i] = "keytool " + strings.Join(args, " ") + ": " + err.Error() + "\n" + string(out)
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
}

// keytoolPipe runs keytool from | keytool to (a certificate request
// straight into -gencert).
func keytoolPipe(from, to []string) error {
	src, dst := keytoolCmd(from), keytoolCmd(to)
	pipe, err := src.StdoutPipe()
	if err != nil {
		return err
	}
	dst.Stdin = pipe
	var srcErr strings.Builder
	src.Stderr = &srcErr
	if err := src.Start(); err != nil {
		return err
	}
	out, dstErr := dst.CombinedOutput()
	if err := src.Wait(); err != nil {
		return fmt.Errorf("keytool %v: %w\n%s", from, err, srcErr.String())
	}
	if dstErr != nil {
		return fmt.Errorf("keytool %v: %w\n%s", to, dstErr, out)
	}
	return nil
}
