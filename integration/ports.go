package integration

import (
	"testing"

	"github.com/zkraft/zkraft/internal/testports"
)

// FreePort returns a loopback port that is free now and that no other call
// in any test process of the same run returns while this one may be in use
// (see package testports). A process outside the tests can still take it;
// tests that cannot rule that out retry with a new port when the bind fails.
func FreePort(t testing.TB) int {
	t.Helper()
	return testports.Free(t)
}
