//go:build !race

package recipes_test

const raceEnabled = false
