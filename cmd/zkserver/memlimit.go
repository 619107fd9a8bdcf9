package main

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"strings"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"

	"github.com/zkraft/zkraft/auth/jaas"
)

// cgroupShare is the part of a cgroup memory limit given to the Go
// runtime: the rest is for memory it does not manage (the kernel's socket
// buffers, the executable, thread stacks outside Go) and for the collector
// to finish a cycle under it.
const cgroupShare = 0.9

// cgroupRecheck is how often a cgroup limit is read again (a Kubernetes
// pod's limit can be resized in place).
const cgroupRecheck = time.Minute

// memoryBudget is where a memory limit comes from.
type memoryBudget struct {
	maxHeap  int64                  // the JVM flags' maximum heap, 0 for none
	heapFrom string                 // the variable that gave it
	cgroup   func() (uint64, error) // memlimit.FromCgroup, replaced in tests
}

// heapVars are the variables zkServer.sh builds the server JVM's flags
// from, in the order java sees them, so that the last maximum heap wins as
// it does there: zkEnv.sh writes -Xmx${ZK_SERVER_HEAP}m (megabytes) before
// SERVER_JVMFLAGS, and zkServer.sh puts JVMFLAGS after it.
var heapVars = []string{"ZK_SERVER_HEAP", jvmFlagsEnv, "JVMFLAGS"}

// maxHeap returns the maximum heap the JVM flags give ZooKeeper's server,
// and the variable it came from; 0 when none gives one. A size java would
// refuse is an error naming the variable.
func maxHeap(lookupEnv func(string) (string, bool)) (int64, string, error) {
	var flag, from string
	for _, name := range heapVars {
		v, set := lookupEnv(name)
		if !set || strings.TrimSpace(v) == "" {
			continue
		}
		if name == "ZK_SERVER_HEAP" {
			flag, from = "-Xmx"+strings.TrimSpace(v)+"m", name
			continue
		}
		f, err := jaas.ParseJVMFlags(v)
		if err != nil {
			return 0, "", fmt.Errorf("%s: %w", name, err)
		}
		if f.MaxHeap != "" {
			flag, from = f.MaxHeap, name
		}
	}
	if flag == "" {
		return 0, "", nil
	}
	size, err := jaas.ParseHeapSize(flag)
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", from, err)
	}
	return size, from, nil
}

// limit returns the limit in bytes and its source, or 0 when there is
// none, and the error of the cgroup read. A cgroup that cannot be read (no
// cgroups, as on macOS, or none mounted) counts as no cgroup limit.
func (b memoryBudget) limit() (int64, string, error) {
	limit, source := b.maxHeap, "the maximum heap in "+b.heapFrom
	cg, err := b.cgroup()
	if err == nil && cg > 0 {
		share := int64(min(float64(cg)*cgroupShare, float64(1<<62)))
		if limit == 0 || share < limit {
			limit, source = share, fmt.Sprintf("%d%% of the cgroup memory limit %d", int(cgroupShare*100), cg)
		}
	}
	if limit == 0 {
		source = ""
	}
	return limit, source, err
}

// limitMemory sets the Go runtime's soft memory limit
// (debug.SetMemoryLimit), unless GOMEMLIMIT is set. As the process's
// memory nears the limit the collector runs sooner than the room
// internal/gctune gives it, so that the heap stays within what the server
// was given instead of holding up to the live heap again as room under a
// bulk load (twice the live heap at 10M znodes, docs/scale.md). Nothing
// fails when the tree itself outgrows the limit: the collector then runs
// as often as the runtime lets it (at most about half the CPU).
//
// The limit, first found first:
//   - GOMEMLIMIT in the environment (the runtime reads it; "off" is none);
//   - the smaller of the maximum heap the JVM flags give (-Xmx6g or
//     -XX:MaxHeapSize=6g in SERVER_JVMFLAGS or JVMFLAGS, or
//     ZK_SERVER_HEAP in megabytes, as zkServer.sh passes them: a
//     deployment keeps the heap budget it gave ZooKeeper) and cgroupShare
//     of the memory limit of the process's cgroup (a container's), read
//     again every cgroupRecheck;
//   - none.
//
// The returned function stops the re-reading. A maximum heap java would
// refuse is an error, as ZooKeeper's JVM would not start with it.
func limitMemory(lookupEnv func(string) (string, bool), log *slog.Logger) (func(), error) {
	if v, set := lookupEnv("GOMEMLIMIT"); set {
		log.Debug("memory limit from GOMEMLIMIT", "GOMEMLIMIT", v)
		return func() {}, nil
	}
	b := memoryBudget{cgroup: memlimit.FromCgroup}
	var err error
	if b.maxHeap, b.heapFrom, err = maxHeap(lookupEnv); err != nil {
		return nil, err
	}
	applied, err := b.apply(0, log)
	if err != nil && !errors.Is(err, memlimit.ErrNoLimit) {
		log.Debug("no cgroup memory limit to follow", "err", err)
		return func() {}, nil
	}
	stop := make(chan struct{})
	go func() {
		tick := time.NewTicker(cgroupRecheck)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				applied, _ = b.apply(applied, log)
			}
		}
	}()
	return func() { close(stop) }, nil
}

// apply sets the limit b gives when it moved from applied (0: none set
// yet), and returns it with the error of the cgroup read. At start it sets
// whatever limit there is; later it follows a cgroup resized, and a limit
// that went away leaves none.
func (b memoryBudget) apply(applied int64, log *slog.Logger) (int64, error) {
	limit, source, err := b.limit()
	switch {
	case limit == applied:
	case applied == 0:
		debug.SetMemoryLimit(limit)
		log.Info("memory limit", "bytes", limit, "from", source)
	case limit == 0:
		debug.SetMemoryLimit(math.MaxInt64)
		log.Info("memory limit removed", "was", applied)
	default:
		debug.SetMemoryLimit(limit)
		log.Info("memory limit changed", "bytes", limit, "was", applied, "from", source)
	}
	return limit, err
}
