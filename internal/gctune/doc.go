// Package gctune sets the Go garbage collector's heap goal from the live
// heap after every collection, for a server process whose live heap is
// mostly one long-lived data tree.
//
// With the default GOGC=100 the heap may grow to twice the live heap
// before the next collection: a server holding 40 MB of znodes then sits
// at about 80 MB of heap, and its resident memory with it. With a small
// live heap the opposite holds: the goal floors at 4 MB, and a server
// with a few megabytes of state collects several times per second under
// load. The tuner gives every cycle the same kind of room instead:
//
//	headroom = max(MinHeadroom, live × Percent / 100)
//	GOGC     = headroom × 100 / live
//
// so a small heap gets a fixed allowance for garbage (fewer cycles than
// the default) and a large one a fraction of its size (less memory than
// the default). The runtime's 4 MiB minimum goal scales with GOGC, so for a
// small heap GOGC is capped where that minimum equals live + MinHeadroom
// (PercentFor). A process started with GOGC in its environment keeps that
// setting: the tuner does not start.
//
// A small fraction costs CPU where the live heap is large and the
// allocation rate high: every cycle marks the whole live heap again, and
// with a room of a quarter of it a server holding millions of znodes
// spent most of a restart, and much of a write burst, collecting (at 3M
// znodes on three servers the write p99 doubled against GOGC=100). So
// the fraction adapts: after each collection the tuner takes the
// collector's share of the process's CPU since the one before (GOMAXPROCS
// × the time between them; marking on Ps idle in Go counts too, as a
// server seldom has the machine to itself) and
// doubles the fraction while the share is above MaxGCShare, up to
// MaxPercent, and halves it back towards Percent once the share is below
// a quarter of that (NextRoom). An idle server has few collections to
// learn from (the runtime forces one every two minutes), so the tuner
// also looks at the allocation rate every IdleAfter: a look that finds
// less allocated than an eighth of the floor's room halves the room, and
// the first such look that finds the room back at Percent after it had
// grown hands the free memory back to the system at once
// (debug.FreeOSMemory): the runtime's scavenger alone kept a third of a
// server's RSS mapped minutes after a 3M-znode fill. The rate, not the
// time since the last collection, says idle: under a steady fill of a
// big tree the collections are a minute apart.
// A GOMEMLIMIT in the environment still bounds the heap: the runtime
// collects early to stay under it whatever GOGC says.
//
// The tuner learns of each collection from a finalizer on an object it
// drops and re-creates every cycle, reads /gc/heap/live:bytes from
// runtime/metrics and calls debug.SetGCPercent when the percentage moves.
// It is for main packages: a library must not change the collector of the
// process it is linked into.
package gctune
