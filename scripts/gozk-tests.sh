#!/bin/bash
# Runs go-zookeeper's own ensemble tests (its TestIntegration_* tests start
# servers with `$ZOOKEEPER_BIN_PATH/zkServer.sh start-foreground zoo.cfg`)
# against zkserver: a zkServer.sh stand-in appends the -Dzookeeper.* flags
# of SERVER_JVMFLAGS (the super digest, extendedTypesEnabled) to the zoo.cfg
# and runs zkserver on it.
#
#   scripts/gozk-tests.sh                                  # NoQuorum and Reconfig
#   scripts/gozk-tests.sh 'TestIntegration_' -count=3      # a -run pattern, then go test flags
#   LOAD=4 scripts/gozk-tests.sh                           # beside 4 busy loops, as a loaded CI machine
set -euo pipefail
cd "$(dirname "$0")/.."
run=${1:-'TestIntegration_NoQuorum$|TestIntegration_Reconfig$'}
shift || true
bin=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$bin"
}
trap cleanup EXIT
go build -o "$bin/zkserver" ./cmd/zkserver
cat > "$bin/zkServer.sh" <<SHIM
#!/bin/sh
cfg="\$2"
for f in \$SERVER_JVMFLAGS; do
	case "\$f" in -Dzookeeper.*) echo "\${f#-Dzookeeper.}" >> "\$cfg";; esac
done
exec "$bin/zkserver" "\$cfg"
SHIM
chmod +x "$bin/zkServer.sh"
for ((i = 0; i < ${LOAD:-0}; i++)); do
	(while :; do :; done) &
	pids+=($!)
done
# ZK_VERSION: go-zookeeper skips its 3.5+ tests (reconfig) without it.
ZK_VERSION=3.8.0 ZOOKEEPER_BIN_PATH="$bin" go test -count=1 -run "$run" "$@" github.com/go-zookeeper/zk
