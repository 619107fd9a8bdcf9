#!/usr/bin/env bash
# make test (and make check): runs every step to its end, whatever the
# ones before it gave, then prints one summary of what failed and the
# slowest tests, and exits non-zero if any step failed.
#
#   scripts/test.sh test     # gofmt, go vet, the tests with -race, the Helm chart, the recipes
#   scripts/test.sh check    # the six-platform vet, the oldest Go, the Kubernetes
#                            # manifests, the 100k-znode migration round trip
#   scripts/test.sh crossvet|oldgo|kubecheck|helmcheck   # one step
#
# The go test steps run under gotestsum (pinned in internal/tools/go.mod):
# one line per package while they run, the output of each failed test
# again at the end. Where gotestsum cannot be built (no module proxy and
# no module cache), plain go test runs instead and the steps still report.
# Each step's `go test -json` stream is kept in $TEST_OUT (default: a
# fresh directory under /tmp, printed at the end) for `go run
# ./internal/testtally -slowest 20 $TEST_OUT/*.json`.
#
# Environment: GO (the go command), PLATFORMS (crossvet's, from the Makefile), TEST_P (packages tested at once,
# go test -p; default 3), TEST_OUT, LOAD (busy loops run beside the steps,
# as a loaded CI machine: LOAD=2 make test).
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
what=${1:-test}
out=${TEST_OUT:-$(mktemp -d /tmp/zkraft-test.XXXXXX)}
mkdir -p "$out"
failed=()
skipped=()
results=()

. scripts/busy.sh
start_busy "${LOAD:-0}"

# step NAME CMD...: runs CMD, records its outcome and time. A command that
# exits 3 was skipped (it says why itself).
step() {
	local name=$1 start rc
	shift
	echo "=== step $name"
	start=$(date +%s)
	"$@"
	rc=$?
	local took=$(($(date +%s) - start))
	case $rc in
	0) results+=("ok       $name (${took}s)") ;;
	3) results+=("SKIPPED  $name (${took}s)"); skipped+=("$name") ;;
	*) results+=("FAILED   $name (${took}s)"); failed+=("$name") ;;
	esac
}

# gotestsum, built once per go.sum of internal/tools (go tool caches it).
gts=()
if $GO tool -modfile=internal/tools/go.mod gotestsum --version >/dev/null 2>&1; then
	gts=($GO tool -modfile=internal/tools/go.mod gotestsum)
else
	echo "note: gotestsum (internal/tools/go.mod) could not be built, probably because the module"
	echo "proxy is out of reach; plain go test output follows, and the summary has no test list."
fi

# gotest NAME GO-TEST-ARGS...: one go test run, its JSON kept as NAME.json.
gotest() {
	local name=$1
	shift
	if [ ${#gts[@]} -gt 0 ]; then
		"${gts[@]}" --format pkgname-and-test-fails --format-hide-empty-pkg --hide-summary=skipped \
			--jsonfile "$out/$name.json" -- "$@"
	else
		$GO test "$@"
	fi
}

packages() { $GO list ./... | grep -v '/recipes$'; }

run_test() {
	step gofmt make --no-print-directory fmtcheck
	step vet $GO vet ./...
	# The recipe tests break clients' connections on purpose (faults,
	# leader kills, closes with watches set), and go-zookeeper v1.0.4
	# races with itself when a client reconnects while it holds watches
	# (see recipes/lock_cluster_test.go): they run without -race, beside
	# the race run (they mostly wait on sessions and elections), their
	# output held back until it ends (its step time below is only the wait).
	(
		gotest recipes -count=1 -timeout 10m ./recipes/ >"$out/recipes.log" 2>&1
		echo $? >"$out/recipes.rc"
	) &
	local recipes=$!
	# Every package but the recipes, with the race detector.
	step race gotest race -race -count=1 -timeout 15m -p "${TEST_P:-3}" $(packages)
	step helmcheck helmcheck
	wait $recipes
	step recipes show_recipes
}

# show_recipes prints the background recipes run's output and gives its
# exit code.
show_recipes() {
	cat "$out/recipes.log"
	return "$(cat "$out/recipes.rc")"
}

# Type-checks the code and the tests for every platform zkraft ships for
# (go vet builds no binaries, so this is quick).
crossvet() {
	local p rc=0
	for p in ${PLATFORMS:?the Makefile passes PLATFORMS, its list of release platforms}; do
		echo "go vet ./... ($p)"
		GOOS=${p%/*} GOARCH=${p#*/} $GO vet ./... || rc=1
	done
	return $rc
}

# go.mod's go line is the oldest Go release zkraft builds with (see the
# Makefile). This builds and vets everything with exactly that release,
# which the go command fetches from the module proxy (golang.org/toolchain,
# once); when it cannot be fetched, the step says so and is skipped.
oldgo() {
	local floor out
	floor=$(sed -n 's/^go //p' go.mod)
	if ! out=$(GOTOOLCHAIN=go$floor $GO version 2>&1); then
		echo "oldgo: SKIPPED: go$floor, the release go.mod names, could not be fetched (it needs the"
		echo "module proxy once), so zkraft was not built with its oldest supported Go. The go command said:"
		echo "$out"
		return 3
	fi
	echo "go build ./... && go vet ./... (with ${out##*$'\n'})"
	GOTOOLCHAIN=go$floor $GO build ./... && GOTOOLCHAIN=go$floor $GO vet ./...
}

# deploy/kubernetes validated offline: strict decoding into the Kubernetes
# API's Go types plus cross-object checks, in a module of its own so that
# the main module does not take the Kubernetes dependencies (about 7 s with
# a warm build cache; compiling k8s.io/api from cold takes 1-3 minutes).
# The Kubernetes modules come from the module proxy the first time; when
# they cannot, the step says so and is skipped.
kubecheck() {
	local out
	if ! out=$(cd deploy/kubernetes/check && $GO mod download 2>&1); then
		echo "kubecheck: SKIPPED: the Kubernetes modules deploy/kubernetes/check needs are not in the"
		echo "module cache and could not be downloaded (they need the module proxy once). The go command said:"
		echo "$out" | tail -5
		return 3
	fi
	(cd deploy/kubernetes/check && $GO vet ./... && $GO test -count=1 ./...)
}

# deploy/helm/zkraft rendered with Helm's Go library and validated offline,
# its default release's pods run as zkserver processes (deploy/helm/check,
# a module of its own like kubecheck's). Skipped when its modules cannot
# be downloaded.
helmcheck() {
	local out
	if ! out=$(cd deploy/helm/check && $GO mod download 2>&1); then
		echo "helmcheck: SKIPPED: the Helm and Kubernetes modules deploy/helm/check needs are not in the"
		echo "module cache and could not be downloaded (they need the module proxy once). The go command said:"
		echo "$out" | tail -5
		return 3
	fi
	(cd deploy/helm/check && $GO vet ./... && $GO test -count=1 ./...)
}

run_check() {
	step crossvet crossvet
	step oldgo oldgo
	step kubecheck kubecheck
	# The migration round trip with real ZooKeeper at the issue's size,
	# 100k znodes (make test's -race run builds 10k: 100k took 100 s there).
	step migrate-100k gotest migrate-100k -count=1 -timeout 10m -run TestRoundTripWithZooKeeper ./migrate/
}

case $what in
test) run_test ;;
check) run_check ;;
crossvet | oldgo | kubecheck | helmcheck) step "$what" "$what" ;;
*)
	echo "usage: $0 test|check|crossvet|oldgo|kubecheck|helmcheck" >&2
	exit 2
	;;
esac

echo
echo "=== make $what: summary (go test -json of each step in $out)"
printf '%s\n' "${results[@]}"
if ls "$out"/*.json >/dev/null 2>&1; then
	$GO run ./internal/testtally -slowest 10 "$out"/*.json | sed -n '/^FAILED TEST/,/^$/p;/^SLOWEST TEST/,$p'
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "make $what: FAILED: ${failed[*]}"
	exit 1
fi
if [ ${#skipped[@]} -gt 0 ]; then
	echo "make $what: ok, but skipped: ${skipped[*]} (see their messages above)"
else
	echo "make $what: ok"
fi
