//go:build !unix

package main

// ensureOpenFiles has no limit to raise where open files are not counted
// against an rlimit (Windows).
func ensureOpenFiles(n int, inProcess bool) error { return nil }

// raiseOpenFiles has nothing to raise where open files are not counted
// against an rlimit (Windows).
func raiseOpenFiles(n int) (string, error) { return "", nil }
