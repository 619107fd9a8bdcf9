// Package realzk starts and stops Apache ZooKeeper from the Debian packages
// (apt-get install -y zookeeper; ZooKeeper 3.8.0 with its jars in
// /usr/share/java) so that tests and tools can run the same workload against
// the reference implementation and against zkraft: a standalone server
// (Start, ZooKeeperServerMain), an ensemble (StartEnsemble, one
// QuorumPeerMain JVM per member) or a quorum of one (StartQuorumOfOne,
// QuorumPeerMain with standaloneEnabled=false and reconfig on).
//
// Every server listens on 127.0.0.1 on free ports, keeps its data and
// configuration in a directory of the caller's choice, and logs only errors
// (log4j level ERROR, to out.log in that directory). Start returns once the
// server answers the four-letter word ruok and grants a session;
// StartEnsemble once every member does and srvr shows one leader. Launch
// starts a standalone JVM without waiting, for timing its start-up. Stop
// kills each JVM's whole process group and waits for it.
//
// The package does not import testing, so command-line tools (cmd/zkbench)
// can reuse it. Tests should call Available first and skip with its reason
// when it reports false.
package realzk
