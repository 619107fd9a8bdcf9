#!/usr/bin/env bash
# make flaky: runs one package's tests N times beside LOAD busy loops and
# prints how often each test failed (internal/testtally).
#
#   make flaky N=20 PKG=./integration              # 20 runs with -race beside 2 busy loops
#   make flaky N=5 PKG=./lab RUN=TestLink LOAD=4   # a -run pattern, four busy loops
#   make flaky N=10 PKG=./recipes FLAKY_FLAGS=     # without -race
#
# Each run is a fresh test binary (go test -count=1), so a timeout or a
# panic in one run ends only that run; its tests count as failed there.
# The JSON of every run stays in FLAKY_OUT (default: a fresh directory
# under /tmp, printed at the end).
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
: "${PKG:?make flaky needs PKG, a package pattern such as ./integration}"
n=${N:-20}
flags=${FLAKY_FLAGS--race}
out=${FLAKY_OUT:-$(mktemp -d /tmp/zkraft-flaky.XXXXXX)}
mkdir -p "$out"
. scripts/busy.sh
start_busy "${LOAD:-2}"
# Build once, so that the runs measure the tests, not the compiler.
$GO test $flags -count=1 -run '^$' $PKG >/dev/null || exit 1
for ((i = 1; i <= n; i++)); do
	start=$(date +%s)
	$GO test $flags -count=1 -timeout "${FLAKY_TIMEOUT:-20m}" ${RUN:+-run "$RUN"} -json $PKG >"$out/run-$i.json" 2>"$out/run-$i.err"
	rc=$?
	echo "run $i/$n: exit $rc, $(($(date +%s) - start)) s"
done
echo "=== $n runs of $PKG (go test $flags${RUN:+ -run $RUN}) beside ${LOAD:-2} busy loops; JSON in $out"
$GO run ./internal/testtally "$out"/run-*.json
