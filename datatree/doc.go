// Package datatree is the replicated znode tree of zkraft: the pure,
// deterministic state machine that every replica applies the Raft log to.
//
// It owns:
//
//   - the znodes themselves (data, ACL, persisted Stat counters, ephemeral
//     owner and node type) and the Stat values served to clients, computed
//     exactly as ZooKeeper 3.8's DataTree/DataNode do (served cversion is
//     2*creates-numChildren, ephemeralOwner is hidden for container and TTL
//     nodes, ...);
//   - the write transactions (Txn) and their application (Tree.Apply): create
//     in all its variants, delete, setData, setACL, multi, deleteContainer and
//     closeSession, with ZooKeeper's validation order and error precedence
//     (PrepRequestProcessor) folded into the apply step, and the watch events
//     each write fires;
//   - ACL validation and matching for the world, auth, digest and ip schemes
//     and the super identity (fixupACL/checkACL), and path validation
//     (PathUtils.validatePath);
//   - quota accounting: the zookeeper_stats nodes under /zookeeper/quota
//     follow creates, deletes and data changes below each quota path, as
//     ZooKeeper's DataTree updates them (soft quotas only, see quota.go);
//   - the indexes the server needs: ephemerals per session, container and TTL
//     nodes (ContainerCandidates), node counts and data size;
//   - snapshots of the whole tree (Tree.Snapshot/Restore), including exact
//     ones written while transactions go on (Tree.Freeze, View.WriteTo).
//
// The package must stay a pure function of the transactions it is given: it
// does no I/O, reads no clock (time comes from Txn.Time or a parameter),
// starts no goroutines, takes no locks of its own (the caller serialises
// access; View.WriteTo holds the caller's lock, passed in, for short steps)
// and uses no randomness beyond hash seeds; it must never import net, the server,
// consensus or session packages. Iteration over Go maps and child tables
// (children.go, seeded at random like Go maps) never leaks into results:
// every list it returns is sorted.
package datatree
