package integration

import (
	"strings"
	"testing"

	"github.com/zkraft/zkraft/internal/realzk"
)

// startZkraftForDiff starts the server under test for the differential
// tests and returns its client address; it is stopped when t ends.
// fourLetterWhitelist is the 4lw whitelist (none given = "*").
//
// This is the single switch between "real vs real" (validating the
// normalisation: a second Apache ZooKeeper, zero differences expected) and
// "real vs zkraft".
func startZkraftForDiff(t *testing.T, fourLetterWhitelist ...string) string {
	t.Helper()
	wl := "*"
	if len(fourLetterWhitelist) > 0 {
		wl = strings.Join(fourLetterWhitelist, ",")
	}
	srv, err := realzk.Start(t.TempDir(), realzk.Options{
		ExtraConfig: map[string]string{"4lw.commands.whitelist": wl},
	})
	if err != nil {
		t.Fatalf("start second Apache ZooKeeper: %v", err)
	}
	t.Cleanup(func() { srv.Stop() })
	return srv.Addr()
}
