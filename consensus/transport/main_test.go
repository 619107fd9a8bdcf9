package transport

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any goroutine outlives the tests: every
// transport, pipeline and connection the tests start is closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
