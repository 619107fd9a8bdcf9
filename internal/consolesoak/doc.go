// Command consolesoak measures whether a console page left open holds the
// server's memory steady (issue 17: "a page left open for an hour").
//
// It starts a three-server lab ensemble in this process (package lab,
// every console on), a light client write load (one go-zookeeper client,
// 50 writes a second), and a headless Chromium with two tabs open for the
// whole run: a follower's console and another server's console at a tree
// path, both following their event streams. Every -every it appends a row
// to a CSV: the process's live heap after the last GC, the heap in use, the
// memory the Go runtime holds, goroutines, the resident set and its
// anonymous part (without the mapped files), the size of
// the servers' data directories (their Raft logs, which bbolt maps into
// memory), the writes done, and the time of the last update each tab drew
// (a tab whose stream died shows an old one).
//
//	go run ./internal/consolesoak -duration 60m -out soak.csv
//	go run ./internal/consolesoak -duration 60m -tabs 0 -out control.csv
//
// The second is the control: the same ensemble and load with no page open.
//
// It is a measuring tool, not a test: make test never runs it. It needs
// Chromium (Debian: apt-get install chromium).
package main
