#!/bin/sh
# A stand-in for `java` that runs zkserver where a test harness written for
# Apache ZooKeeper (kazoo's KazooTestHarness) starts
#   java -cp ... -Dkey=value ... org.apache.zookeeper.server.quorum.QuorumPeerMain zoo.cfg
# The -D flags go to zkserver in SERVER_JVMFLAGS, as zkServer.sh passes
# them; the zoo.cfg gets clientPortAddress=127.0.0.1 so that nothing
# listens beyond loopback, and admin.enableServer=false so that no
# AdminServer takes a port the harness did not reserve. ZKRAFT_ZKSERVER names the zkserver binary.
# Used by TestKazooOwnSASLTests in kazoo_suite_test.go.
set -eu
flags=""
main=""
cfg=""
while [ $# -gt 0 ]; do
  case "$1" in
    -cp|-classpath) shift ;;
    -D*) flags="$flags $1" ;;
    org.apache.zookeeper.*) main="$1"; shift; cfg="$1" ;;
  esac
  shift
done
case "$main" in
  *QuorumPeerMain|*ZooKeeperServerMain) ;;
  *) echo "java_shim: cannot run ${main:-nothing} (only ZooKeeper's server mains)" >&2; exit 2 ;;
esac
local_cfg="$cfg.zkraft"
{ cat "$cfg"; echo "clientPortAddress=127.0.0.1"; echo "admin.enableServer=false"; } > "$local_cfg"
SERVER_JVMFLAGS="$flags" exec "$ZKRAFT_ZKSERVER" "$local_cfg"
