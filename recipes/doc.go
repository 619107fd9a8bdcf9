// Package recipes implements the classic ZooKeeper coordination recipes on
// the stock github.com/go-zookeeper/zk client:
//
//   - locks: Lock (exclusive), RWLock (shared read/write), RevocableLock,
//     each with a fencing Token and GuardedMulti;
//   - Semaphore with N leases;
//   - Election (leader election), JoinGroup (group membership), Register
//     (service registry), each with a live view (ObserveLeader,
//     WatchMembers, WatchInstances);
//   - Barrier and DoubleBarrier;
//   - Queue and PriorityQueue;
//   - two-phase commit: Coordinator and JoinTransaction;
//   - Counter (versioned compare-and-set) and WatchConfig.
//
// It imports no part of the zkraft server: every recipe works against any
// ZooKeeper ensemble, and the tests prove each one against zkraft.
//
// Common rules:
//
//   - Every blocking call takes a context.Context and returns ctx.Err() when
//     it is cancelled, after removing whatever node it had created.
//   - Waiting is driven by watches, never by polling. Waiters in a line watch
//     only the node just ahead of them, so a release wakes one waiter (no
//     herd effect).
//   - Sequential nodes are created "protected": their names carry a random
//     prefix, so a create whose reply was lost to a connection loss is found
//     again instead of being orphaned (see CreateProtected).
//   - A recipe whose ephemeral node disappears (its session expired, or
//     someone deleted it) reports it: lock holders on a Lost channel, leaders
//     on their leadership channel, blocking calls with ErrSessionLost.
//
// Fencing: a lock only tells its holder that it was granted, not that it
// still holds when its write arrives (a paused holder's session can expire
// meanwhile). Lock, RWLock, Semaphore leases and Election leadership
// therefore carry a fencing Token (the grant node's czxid) and a
// GuardedMulti that writes to ZooKeeper only while the grant holds; Fence
// refuses stale tokens in front of any other resource. docs/recipes.md
// says which recipe to use when, and what the tokens promise.
//
// go-zookeeper gives a *zk.Conn a fresh session after expiry; the recipes
// notice the expiry through their watches (an EventNotWatching carrying
// zk.ErrSessionExpired) and never assume the old session's nodes survive.
package recipes
