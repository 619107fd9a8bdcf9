// Command consolesoak measures whether a console page left open holds the
// server's memory steady (issue 17: "a page left open for an hour").
//
// It starts a three-server lab ensemble in this process (package lab,
// every console on), a light client write load (one go-zookeeper client,
// 50 writes a second), and a headless Chromium with two tabs open for the
// whole run: a follower's console and another server's console at a tree
// path, both following their event streams. Every -every it appends a row
// to a CSV: the process's live heap after the last GC, the heap in use, the
// memory the Go runtime holds, goroutines, the resident set, the writes
// done, and whether each tab still received updates.
//
//	go run ./internal/consolesoak -duration 60m -out soak.csv
//
// It is a measuring tool, not a test: make test never runs it. It needs
// Chromium (Debian: apt-get install chromium).
package main
