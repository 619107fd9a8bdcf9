// Package buildinfo is zkraft's version, in the form ZooKeeper's tools
// parse ("3.8.0-zkraft-<module version or commit>"), and its build time.
// It uses only the standard library, so every command (zkserver, zkcli,
// zkbench) can report the same version without importing the server.
package buildinfo
