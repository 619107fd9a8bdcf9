#!/bin/bash
# Reproduces the table in docs/performance.md: zkserver (its own process,
# in memory) against Apache ZooKeeper 3.8 standalone with forceSync=no, which
# zkbench starts from the Debian package. Same machine, same run, rounds
# alternating A, B, A, B. Needs `apt-get install -y zookeeper`.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'kill $(cat "$out/pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$out"' EXIT
go build -o "$out/zkserver" ./cmd/zkserver
go build -o "$out/zkbench" ./cmd/zkbench
port=${ZKRAFT_BENCH_PORT:-22181}
printf 'tickTime=2000\nclientPort=%s\nclientPortAddress=127.0.0.1\nmaxClientCnxns=0\n4lw.commands.whitelist=*\n' "$port" > "$out/zoo.cfg"
"$out/zkserver" "$out/zoo.cfg" 2> "$out/zkserver.log" &
echo $! > "$out/pid"
for _ in $(seq 100); do
  (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
  sleep 0.05
done
run() { echo "== $*"; "$out/zkbench" -compare "127.0.0.1:$port;zookeeper" -size 100 -warmup 3s -duration 5s -rounds 3 "$@"; echo; }
for op in get set create; do run -op "$op" -sessions 8 -inflight 4; done
for op in get set create; do run -op "$op" -sessions 1 -inflight 1; done
