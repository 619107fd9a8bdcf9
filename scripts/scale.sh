#!/bin/bash
# Issue 6's memory and scale figures: zkserver (its own process, in memory,
# with the -pprof debug listener so zkbench can read its live heap) against
# Apache ZooKeeper 3.8 standalone with forceSync=no, which zkbench starts
# from the Debian package; zkbench reads the JVM's live heap with jcmd.
# Runs fill (200,000 znodes of 100 bytes), sessions (10,000) and watchers
# (10,000), about three minutes. Extra arguments go to every zkbench run
# (e.g. -n 1000 for a quick try). Needs `apt-get install -y zookeeper` and
# a JDK's jcmd for ZooKeeper's heap.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'kill $(cat "$out/pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$out"' EXIT
go build -o "$out/zkserver" ./cmd/zkserver
go build -o "$out/zkbench" ./cmd/zkbench
port=${ZKRAFT_BENCH_PORT:-22181}
debug=${ZKRAFT_DEBUG_PORT:-22180}
printf 'tickTime=2000\nclientPort=%s\nclientPortAddress=127.0.0.1\nmaxClientCnxns=0\n4lw.commands.whitelist=*\n' "$port" > "$out/zoo.cfg"
run() {
  "$out/zkserver" -pprof "127.0.0.1:$debug" "$out/zoo.cfg" 2> "$out/zkserver.log" &
  echo $! > "$out/pid"
  for _ in $(seq 100); do
    (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
    sleep 0.05
  done
  echo "== $*"
  "$out/zkbench" -compare "127.0.0.1:$port;zookeeper" -session-timeout 30s "$@"
  echo
  kill "$(cat "$out/pid")"
  wait "$(cat "$out/pid")" || true
}
# A fresh zkserver for each op, as zkbench starts a fresh ZooKeeper.
run -op fill -n 200000 -size 100 "$@"
run -op sessions -n 10000 "$@"
run -op watchers -n 10000 "$@"
