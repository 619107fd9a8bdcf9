//go:build race

package migrate_test

// raceEnabled says the race detector is on: the round trip then builds a
// smaller tree (it costs about 100 s with 100k znodes under -race, which
// finds nothing more than with 10k).
const raceEnabled = true
