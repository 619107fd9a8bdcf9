// Package console is zkraft's web console: a page built into every
// server, served at the root "/" of the AdminServer's address (same
// switch, same port; admin.console.enabled=false turns it off alone),
// that shows the whole ensemble live. Its HTML, CSS and JavaScript are
// embedded in the binary (assets/, no framework, nothing fetched from
// the internet).
//
// The ensemble view lists every member: its role, Raft term shown as
// ZooKeeper's epoch, last log, commit and applied indexes, last zxid, and
// on the leader each follower's match index and lag; connections,
// sessions, watches, znodes and request latency; and a timeline of
// elections, leader changes, peer outages, membership changes and
// snapshots. The page reads /console/api/ensemble once, then follows
// /console/api/events, a server-sent event stream, with no page reloads.
// The other members' figures reach this server over the links between
// servers (server.Server.WatchEnsemble), so one tab shows them all.
//
// Nothing is computed for a server nobody watches: one goroutine per
// Console refreshes the figures only while at least one stream is open,
// and stops with the last. Streams are bounded: a client that falls
// behind by streamBacklog messages is cut off (its browser reconnects and
// starts afresh), and at most maxStreams are open at once.
//
// The tree browser (tree.go, assets/tree.js) navigates the znodes, shows
// data as text, JSON or hex with the Stat and ACL, searches by path
// prefix, and lists the sessions with their ephemerals and watches; what a
// reader sees follows each node's ACL. Every route answers GET and HEAD
// only, except the tree browser's writes (treewrite.go): create, set and
// delete, POST, through Console.authorized, which demands what the
// AdminServer's snapshot and restore commands demand (an Authorization
// header, or a client certificate, that server.Server.AuthorizeAdmin
// accepts). The writes are ordinary transactions proposed through
// consensus by server.Server.AdminCreate and its siblings. The lab's
// actions (lab.go) pass the same gate, and exist only when the lab
// command (package lab) sets Options.Lab: a normal server has none.
//
// The replication view (replication.go, assets/replication.js) plays back
// the real messages between the servers, each labelled with its ZAB phase
// and zxid: the page polls /console/api/replication with its own cursor
// per server, which keeps every member's message trace recording for a
// few seconds (consensus/msgtrace.go); nothing is recorded while no page
// asks, and the server keeps no state per page.
//
// It must not import consensus, datatree or session: it reads only the
// read-only views of *server.Server (the View interface). cmd/zkserver
// mounts it into the AdminServer (admin.Options.Console); the integration
// harness leaves it off.
package console
