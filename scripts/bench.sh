#!/bin/bash
# Reproduces every table in docs/performance.md: zkraft beside Apache
# ZooKeeper 3.8 (Debian package `zookeeper`, started by zkbench from its
# jars), same machine, same run, rounds alternating A, B, A, B.
#
#   scripts/bench.sh                 # everything, about 50 minutes
#   scripts/bench.sh standalone      # or any of: standalone latency ensemble memory scale start bigtree10m
#                                    # lock (about 4 minutes) slowleader (about 6 minutes)
#                                    # stability (10 minutes of load)
#   scripts/bench.sh ensemble5       # one ensemble shape: ensemble3 ensemble5 ensemble3o2
#   make bench BENCH=ensemble3o2     # the same through make
#
# zkbench starts every server itself: `zkserver` (this repository's server
# as its own process, in memory, with its -pprof listener for heap figures),
# `zkserver3`, `zkserver5` and `zkserver3o2` (durable zkserver processes:
# three, five, and three voters with two observers), `zookeeper`
# (standalone) and `zookeeper3`, `zookeeper5`, `zookeeper3o2` (the same
# ensembles of ZooKeeper JVMs), and for slowleader `zkserver3slow` and
# `zookeeper3slow` (the leader's data on disk, the followers' on tmpfs) and
# `zkserver3tmpfs` (all on tmpfs; make bench BENCH=slowleader). Needs `apt-get install -y zookeeper` and a
# JDK's jcmd (for ZooKeeper's live heap); the lock part's Curator client
# needs javac and `apt-get install -y libcurator-recipes-java
# libcurator-framework-java libcurator-client-java` (else zkbench skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/zkserver" ./cmd/zkserver
go build -o "$out/zkbench" ./cmd/zkbench

bench() { echo "== zkbench $*"; "$out/zkbench" "$@"; echo; }
load=(-size 100 -warmup 3s -duration 5s -rounds 3)

standalone() { # 8 sessions x 4 in flight: throughput >= 2x ZooKeeper forceSync=no
  for op in get set create; do
    bench -compare 'zkserver;zookeeper' -op "$op" -sessions 8 -inflight 4 "${load[@]}"
  done
}
latency() { # one client, one request at a time: p50 <= 0.7x ZooKeeper's
  for op in get set create; do
    bench -compare 'zkserver;zookeeper' -op "$op" -sessions 1 -inflight 1 "${load[@]}"
  done
}
# Ensembles (issue 13): every shape, durable, forceSync=yes on both sides,
# one request at a time per session. Goal: ops/s >= 2x ZooKeeper's in every
# round. Each shape is two zkbench runs, each starting its two ensembles once
# (five ZooKeeper JVMs take 15-45 s to elect on a loaded machine):
#  - set, create, get, mix (90% get) with 8 and 64 sessions spread over all
#    servers in turn, latency broken down by the role of each session's server;
#  - the same four ops from a single client connected to the leader, to a
#    follower (and to an observer), chosen by srvr's Mode each round.
# 2 rounds x (2 s warm-up + 4 s) per workload and target: 16 workloads
# (20 with observers) of ~26 s, about 8-11 minutes a shape, 30 for all three.
ens=(-forcesync=yes -size 100 -inflight 1 -warmup 2s -duration 4s -rounds 2)
ensemble_shape() { # $1 zkserver target, $2 ZooKeeper target, $3 roles for one client
  bench -compare "$1;$2" -op set,create,get,mix -sessions 8,64 "${ens[@]}"
  bench -compare "$1;$2" -op set,create,get,mix -sessions 1 -role "$3" "${ens[@]}"
}
ensemble3() { ensemble_shape zkserver3 zookeeper3 leader,follower; }
ensemble5() { ensemble_shape zkserver5 zookeeper5 leader,follower; }
ensemble3o2() { ensemble_shape zkserver3o2 zookeeper3o2 leader,follower,observer; }
ensemble() { ensemble3; ensemble5; ensemble3o2; }
memory() { # 200,000 znodes of 100 bytes: heap per znode, RSS
  bench -compare 'zkserver;zookeeper' -session-timeout 30s -op fill -n 200000 -size 100
}
scale() { # issue 30's smaller versions (docs/scale.md), about 8 minutes:
  # 10,000 sessions opened on three servers with local sessions, by the bare
  # handshake (go-zookeeper's Connect would bound the time); a reconnect storm
  # of 20,000 sessions after a leader kill; 1M znodes on three servers (fill,
  # memory, restart, snapshot under 16 writers, a wiped follower's catch-up);
  # 10,000 watchers of one znode
  bench -compare 'zkserver3;zookeeper3' -session-timeout 30s -op sessions -sessionclient raw -n 10000 \
    -cfg localSessionsEnabled=true
  bench -compare 'zkserver3;zookeeper3' -session-timeout 30s -op storm -n 20000 -inflight 32
  bench -compare 'zkserver3;zookeeper3' -op bigtree -n 1000000 -zkheap 2g -bigtree-idle 1m
  bench -compare 'zkserver;zookeeper' -session-timeout 30s -op watchers -n 10000
}
bigtree10m() { # 10M znodes on three servers, about 21 minutes, up to 19.4 GiB of RSS:
  # run it alone (docs/scale.md); the RSS is sampled again 2 min after the fill
  bench -compare 'zkserver3;zookeeper3' -op bigtree -n 10000000 -zkheap 6g -bigtree-idle 2m
}
start() { # process start to first successful write
  bench -compare 'zkserver;zookeeper' -op start -rounds 10
}
lock() { # lock handoff: recipes.Lock and Curator's InterProcessMutex, waiters on followers;
  # then 4 clients on all servers, 24 s, two leader kills: sections and the longest gap
  bench -compare 'zkserver3;zookeeper3' -forcesync=yes -op lock -sessions 4 -role follower -warmup 3s -duration 10s -rounds 3
  bench -compare 'zkserver3;zookeeper3' -forcesync=yes -op lock -sessions 4 -kills 2 -warmup 3s -duration 24s -rounds 1
}
# Slow-disk leader: three servers, forceSync=yes, the leader's dataDir (ZooKeeper:
# and dataLogDir) on this machine's disk (SLOW_DISKDIR, default the temp dir), both
# followers' on tmpfs (SLOW_TMPFSDIR, default /dev/shm): each write waits for one
# real fsync, the leader's. zkserver3tmpfs (every log on tmpfs) is the floor. One
# client, one request in flight, via the leader and via a follower; rounds alternate
# zkserver3slow, zkserver3tmpfs, zookeeper3slow. Goal: set p50 via either within
# 1.25x of zkserver3tmpfs (A/B), p50 <= 0.5x and p99 <= 0.3x ZooKeeper's (A/C).
# Also gives the servers' CPU per write by role, user and kernel time.
slowleader() {
  bench -compare 'zkserver3slow;zkserver3tmpfs;zookeeper3slow' -op set,create -sessions 1 -inflight 1 \
    -role leader,follower -forcesync=yes -diskdir "${SLOW_DISKDIR:-${TMPDIR:-/tmp}}" -tmpfsdir "${SLOW_TMPFSDIR:-/dev/shm}" \
    -size 100 -warmup 2s -duration 5s -rounds 3
}
stability() { # full load on an ensemble: no leader change (STABILITY_DURATION, default 10m)
  bench -compare 'zkserver3;zookeeper3' -forcesync=yes -op mix -mix 50 -sessions 24 -inflight 4 \
    -leaderwatch -warmup 3s -duration "${STABILITY_DURATION:-10m}" -rounds 1
}

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(standalone latency ensemble memory scale start lock slowleader)
for p in "${parts[@]}"; do
  case "$p" in
    standalone|latency|ensemble|ensemble3|ensemble5|ensemble3o2|memory|scale|bigtree10m|start|lock|slowleader|stability) "$p" ;;
    *) echo "unknown part $p (want standalone latency ensemble memory scale bigtree10m start lock slowleader stability, or one shape: ensemble3 ensemble5 ensemble3o2)" >&2; exit 2 ;;
  esac
done
