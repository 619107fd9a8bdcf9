//go:build race

package recipes_test

// raceEnabled reports a -race build: tests that trip go-zookeeper's own
// data race skip themselves and run in make test's race-free pass.
const raceEnabled = true
