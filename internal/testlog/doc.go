// Package testlog holds what tests use to read logs written by servers
// they run: a Buffer that a logger or a child process writes into on one
// goroutine while the test reads it on another. It is for tests only.
package testlog
