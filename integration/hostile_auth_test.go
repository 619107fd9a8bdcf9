package integration

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/session"
	"github.com/zkraft/zkraft/wire"
)

// Auth and sasl packets are not session activity (ZooKeeper touches a
// session only for requests it submits to its processor chain): a client
// that sends nothing else loses its session at the timeout, while a client
// that only pings keeps its own.
func TestHostileAuth_AuthAndSASLDoNotKeepASessionAlive(t *testing.T) {
	cases := []struct {
		name string
		send func(c *rawClient) (rawReply, error)
	}{
		{"auth", func(c *rawClient) (rawReply, error) {
			return c.CallXid(wire.XidAuth, wire.OpAuth, &wire.AuthPacket{Scheme: "digest", Auth: []byte("u:p")}, nil)
		}},
		{"sasl", func(c *rawClient) (rawReply, error) {
			return c.Call(wire.OpSASL, &wire.SASLRequest{Token: []byte{}}, nil)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := StartServer(t, WithFakeClock())
			const timeoutMs = 6000
			only, err := connectRaw(s.Addr(), timeoutMs)
			require.NoError(t, err)
			defer only.Close()
			pinger, err := connectRaw(s.Addr(), timeoutMs)
			require.NoError(t, err)
			defer pinger.Close()

			// Three session timeouts of fake time, each step started by one
			// answered packet from each client (so the server has seen it).
			for i := 0; i < 18 && !only.Closed(); i++ {
				if rep, err := tc.send(only); err == nil {
					require.Equal(t, wire.CodeOK, rep.Hdr.Err, "%s is answered", tc.name)
				}
				_, err := pinger.Ping()
				require.NoError(t, err, "the pinging session stays alive")
				s.Clock.Advance(time.Second)
			}
			waitSessionGone(t, s, only.Session.SessionID)
			_, closed, err := only.WaitClosed(10 * time.Second)
			require.NoError(t, err)
			require.True(t, closed || only.Closed(), "the expired session's connection is closed")
			_, err = pinger.Ping()
			require.NoError(t, err)
			require.True(t, hasSession(s, pinger.Session.SessionID), "pings keep a session alive")
		})
	}
}

func hasSession(s *Server, id int64) bool {
	return slices.ContainsFunc(s.Sessions(), func(i session.Info) bool { return i.ID == id })
}

// waitSessionGone waits (real time: the expiry's closeSession goes
// through the log) until the server no longer knows session id.
func waitSessionGone(t *testing.T, s *Server, id int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for hasSession(s, id) {
		require.True(t, time.Now().Before(deadline), "session 0x%x is still alive after three timeouts of fake time", id)
		time.Sleep(5 * time.Millisecond) // poll interval of the condition
	}
}

// kazooPython returns a python3 that can import kazoo and pure-sasl, or
// skips the test.
func kazooPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(py)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import kazoo, puresasl").Run() == nil {
			return path
		}
	}
	t.Skip("python3 with kazoo and pure-sasl not found (apt-get install -y python3-kazoo python3-pure-sasl)")
	return ""
}

// kazoo's SASL handshake against a server without SASL sends sasl packets
// until the server ends the session (ZooKeeper answers each with an empty
// token). Since they do not count as activity, the session expires and
// kazoo gives up (state LOST), as against ZooKeeper, instead of looping
// for ever. The server's fake clock runs fast so the 4 s session timeout
// passes in a fraction of a second.
func TestHostileAuth_KazooSASLFailsInsteadOfLooping(t *testing.T) {
	py := kazooPython(t)
	s := StartServer(t, WithFakeClock())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, py, filepath.Join("testdata", "kazoo_sasl.py"), s.Addr(), "30")
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			t.Logf("kazoo: %s", strings.TrimSpace(out.String()))
			require.NoError(t, err, "kazoo's SASL handshake must end with a lost session, not loop:\n%s", out.String())
			require.Contains(t, out.String(), "lost after")
			return
		case <-tick.C:
			s.Clock.Advance(250 * time.Millisecond)
		}
	}
}

// kazoo's TestReconfig, run against a zkraft ensemble: from a client
// without WRITE on /zookeeper/config, a malformed server line is
// BADARGUMENTS and a future config version BADVERSION (ZooKeeper checks
// both before the ACL); a valid change is NOAUTH.
func TestHostileAuth_KazooReconfigChecks(t *testing.T) {
	py := kazooPython(t)
	c := StartCluster(t, 3, WithServerConfig(func(cfg *server.Config) {
		cfg.ReconfigEnabled = true
		cfg.SuperDigest = superDigest
		cfg.MaxSessionTimeout = 20 * time.Second
		cfg.TickTime = steadyTick
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, filepath.Join("testdata", "kazoo_reconfig.py"), c.Servers[c.Leader()].Addr()).CombinedOutput()
	t.Logf("kazoo:\n%s", out)
	require.NoError(t, err, "kazoo's reconfig checks failed:\n%s", out)
}
