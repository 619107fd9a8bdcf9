// Package migrate moves data between Apache ZooKeeper 3.8 and zkraft: it
// reads ZooKeeper's on-disk data (a version-2/snapshot.<zxid> file and the
// version-2/log.<zxid> transaction logs after it), replays the logs over
// the snapshot exactly as ZooKeeper's FileTxnSnapLog.restore and
// DataTree.processTxn do, and seeds a zkraft data directory with the result
// (Import); and it writes a zkraft data directory's state as a ZooKeeper
// snapshot file that ZooKeeper 3.8 loads (Export).
//
// It is a tool over the formats of datatree (StoredNode, Builder,
// WalkStored) and consensus (Seed, ReadState): it owns ZooKeeper's file
// formats (jute records, the Adler-32 seals, the preallocated log tail, the
// zxid digest) and ZooKeeper's transaction semantics during a restore
// (fuzzy snapshots, NONODE and NODEEXISTS tolerated, the parent cversion
// fix-up), and nothing else. It must not be imported by the server: only
// cmd/zkserver's import and export commands use it. docs/migration.md
// describes what is carried over and what is not.
package migrate
