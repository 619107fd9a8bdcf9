package integration

import (
	"os"
	"strings"
	"testing"

	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/server"
)

// startZkraftForDiff starts the server under test for the differential
// tests and returns its client address; it is stopped when t ends.
// fourLetterWhitelist is the 4lw whitelist (none given = "*").
//
// This is the single switch between "real vs zkraft" and "real vs real"
// (a second Apache ZooKeeper, to validate the normalisation: zero
// differences expected). Set ZKRAFT_DIFF_TARGET=realzk for the latter.
func startZkraftForDiff(t *testing.T, fourLetterWhitelist ...string) string {
	t.Helper()
	wl := []string{"*"}
	if len(fourLetterWhitelist) > 0 {
		wl = fourLetterWhitelist
	}
	if diffTargetIsRealZK() {
		srv, err := realzk.Start(t.TempDir(), realzk.Options{
			ExtraConfig: map[string]string{"4lw.commands.whitelist": strings.Join(wl, ",")},
		})
		if err != nil {
			t.Fatalf("start second Apache ZooKeeper: %v", err)
		}
		t.Cleanup(func() { srv.Stop() })
		return srv.Addr()
	}
	srv := StartServer(t, WithConfig(func(c *server.Config) {
		c.ExtendedTypesEnabled = true
		c.SuperDigest = realzk.SuperDigest
		c.FourLetterWhitelist = wl
	}))
	return srv.Addr()
}

func diffTargetIsRealZK() bool { return os.Getenv("ZKRAFT_DIFF_TARGET") == "realzk" }
