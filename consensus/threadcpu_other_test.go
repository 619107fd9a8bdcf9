//go:build !linux

package consensus

import "time"

// threadCPU is 0 where a thread's CPU time cannot be read (only Linux has
// RUSAGE_THREAD); the benchmarks then report wall time only.
func threadCPU() time.Duration { return 0 }
