# Sourced by the test scripts: start_busy N runs N busy loops beside what
# follows, as on a loaded CI machine, and stops them when the script exits.
busy_pids=()
start_busy() {
	local i
	for ((i = 0; i < ${1:-0}; i++)); do
		(while :; do :; done) &
		busy_pids+=($!)
	done
	trap 'for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT
}
