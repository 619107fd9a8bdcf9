// Package treejson exports a subtree of a ZooKeeper tree as JSON and imports
// it back, for people who move a part of their tree from one ensemble to
// another: paths, data (base64, so binary data survives), ACLs, and each
// node's mode (persistent, ephemeral, container, TTL; sequential names are
// kept as they are, and the parent's sequence counter moved past them).
//
// A node is marked sequential when the export saw it so: its name ends in
// ten digits below its parent's cversion (SawSequential). Import moves a
// parent's counter by at most MaxCounterSteps and warns past that. Import
// leaves nodes that exist as exported alone, so running an interrupted
// import again resumes it; a node that exists with other content stops it
// (unless asked to overwrite).
//
// It speaks to servers only through the stock go-zookeeper client, so it
// works the same against zkraft and against Apache ZooKeeper, and a client
// tool (the future zkcli) can reuse it. It must not import the server.
//
// One limit comes from the protocol: a server shows clients an
// ephemeralOwner of 0 for containers and TTL nodes (ZooKeeper's
// DataNode.copyStat; zkraft does the same), so Export, which reads through
// the client, records them as persistent. The format has the container and
// ttl modes, and Import creates nodes so marked as such, so an export can be
// corrected by hand (or by a tool with access to the server's data) before
// it is imported.
//
// Both directions stream: Export writes each node as it reads it, one per
// line, and Import creates nodes as it decodes them, so neither holds the
// tree in memory. An export is not a point-in-time snapshot (ZooKeeper's
// protocol has no such read): a node that changes during the walk is
// exported as it was when it was read. For a consistent copy of a whole
// ensemble, use the AdminServer's snapshot command.
//
// The file is one JSON document (see Header and Node):
//
//	{"format":"zkraft-treejson","version":1,"root":"/app","nodes":[
//	{"path":"/app","data":"AAEC/w==","acl":[{"perms":31,"scheme":"world","id":"anyone"}],"mode":"persistent"},
//	...
//	]}
package treejson
