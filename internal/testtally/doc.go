// Command testtally reads the JSON event streams of `go test -json` runs
// (files named on the command line, or standard input) and prints, for
// every test that failed at least once, how often it ran and how often it
// failed, then one line per package. `make flaky` uses it to turn N runs
// of a package under load into a failure rate per test.
//
// It is a development tool: nothing in the server imports it.
package main
