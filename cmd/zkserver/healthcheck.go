package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/zkraft/zkraft/admin"
	"github.com/zkraft/zkraft/deploy/envconfig"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/tlsconf"
)

// errUnhealthy is returned when the server answers but is not ready.
var errUnhealthy = errors.New("not ready")

// healthTimeout bounds the whole check (Docker's default HEALTHCHECK
// timeout is 30 s, Kubernetes' probe timeout 1 s).
const healthTimeout = 3 * time.Second

// runHealthcheck is `zkserver healthcheck [zoo.cfg]`, the image's
// HEALTHCHECK, which needs no shell, curl or nc: it exits 0 when the
// server of that zoo.cfg (default $ZOO_CONF_DIR/zoo.cfg) is ready, as the
// AdminServer's /ready says, or without an AdminServer when srvr answers
// with a Mode (a server without a quorum says it is not serving).
func runHealthcheck(args []string, stdout io.Writer) error {
	if len(args) > 1 {
		return errUsage
	}
	path := ""
	if len(args) == 1 {
		path = args[0]
	} else {
		s, err := envconfig.FromEnv(os.LookupEnv)
		if err != nil {
			return err
		}
		path = s.ConfigPath()
	}
	cfg, err := server.ParseConfigFile(path)
	if err != nil {
		return err
	}
	if cfg.AdminEnableServer {
		client, scheme, err := readyClient(cfg)
		if err != nil {
			return err
		}
		return checkReady(client, scheme+"://"+localAddr(cfg.AdminServerAddress, cfg.AdminServerPort), stdout)
	}
	return checkSrvr(localAddr(cfg.ClientPortAddress, cfg.ClientPort), stdout)
}

// localAddr is where to reach a listener bound to host:port from the same
// machine: loopback for a wildcard address.
func localAddr(host string, port int) string {
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// readyClient returns the client and scheme that reach the AdminServer:
// with admin.forceHttps, HTTPS that trusts the ssl.quorum.* trust store and
// presents the key store's certificate (admin.needClientAuth may want it).
// The server's name is not checked: the check dials this machine's own
// server, at an address its certificate need not name.
func readyClient(cfg server.Config) (*http.Client, string, error) {
	client := &http.Client{Timeout: healthTimeout}
	if !cfg.Admin.ForceHTTPS {
		return client, "http", nil
	}
	tc, _, err := tlsconf.FromProps(cfg.Security.SSLQuorumProps, "ssl.quorum.")
	if err != nil {
		return nil, "", err
	}
	tc.HostnameVerification = false
	tc.PollInterval = -1 // one request: no need to watch the files
	src, err := tlsconf.Load(tc, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, "", err
	}
	client.Transport = &http.Transport{TLSClientConfig: src.ClientConfig()}
	return client, "https", nil
}

func checkReady(client *http.Client, base string, stdout io.Writer) error {
	resp, err := client.Get(base + admin.ReadyPath)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	fmt.Fprintf(stdout, "%s", body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: %s", errUnhealthy, resp.Status)
	}
	return nil
}

func checkSrvr(addr string, stdout io.Writer) error {
	c, err := net.DialTimeout("tcp", addr, healthTimeout)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(healthTimeout))
	if _, err := io.WriteString(c, "srvr"); err != nil {
		return err
	}
	out, err := io.ReadAll(io.LimitReader(c, 4096))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Mode: ") {
			fmt.Fprintln(stdout, line)
			return nil
		}
	}
	return fmt.Errorf("%w: %s", errUnhealthy, strings.TrimSpace(string(out)))
}
