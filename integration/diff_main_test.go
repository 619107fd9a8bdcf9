package integration

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain stops the Apache ZooKeeper shared by the differential tests once
// every test has run, then checks that no goroutine outlived its test: every
// server, cluster and client the harness started must be gone. Tests that
// need their own process-wide setup should add it here rather than define a
// second TestMain.
func TestMain(m *testing.M) {
	code := m.Run()
	stopSharedRealZK()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines left after every test ended: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
