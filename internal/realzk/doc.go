// Package realzk starts and stops a standalone Apache ZooKeeper server from
// the Debian packages (apt-get install -y zookeeper; ZooKeeper 3.8.0 with its
// jars in /usr/share/java) so that tests and tools can run the same workload
// against the reference implementation and against zkraft.
//
// The server listens on 127.0.0.1 on a free port, keeps its data and
// configuration in a directory of the caller's choice, and logs only errors
// (log4j level ERROR, to out.log in that directory). Start returns once the
// server answers the four-letter word ruok; Stop kills the JVM's whole process
// group and waits for it.
//
// The package does not import testing, so command-line tools (cmd/zkbench)
// can reuse it. Tests should call Available first and skip with its reason
// when it reports false.
package realzk
