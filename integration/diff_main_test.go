package integration

import (
	"os"
	"testing"
)

// TestMain stops the Apache ZooKeeper shared by the differential tests once
// every test has run. Tests that need their own process-wide setup should
// add it here rather than define a second TestMain.
func TestMain(m *testing.M) {
	code := m.Run()
	stopSharedRealZK()
	os.Exit(code)
}
