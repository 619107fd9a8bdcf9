// Command zkserver runs a zkraft server.
//
// With no arguments it serves an in-memory standalone server on
// 127.0.0.1:2181. With one argument, the path of a zoo.cfg, it reads the
// standard ZooKeeper keys from it, as zkServer.sh start-foreground would.
// It stops cleanly on SIGINT and SIGTERM. With server.N lines it joins a
// Raft ensemble (see docs/zab-and-raft.md); with a dataDir it is durable.
// It must hold no logic a package should own: it parses arguments, builds a
// server.Server and waits for a signal.
package main
