// Command zkcli is a JVM-free command-line client for ZooKeeper-compatible
// servers (zkraft and Apache ZooKeeper), built on the stock go-zookeeper
// client. It takes zkCli.sh's command syntax and, where scripts parse it,
// prints what ZooKeeper 3.8's zkCli.sh prints.
//
// One command per invocation (zkCli.sh's one-shot mode), or, with no
// command, an interactive session reading commands from standard input:
//
//	zkcli [-server host:port] [-auth scheme:auth]... [-timeout d] [--json] [cmd args...]
//
// Commands:
//
//	ls [-s] [-R] path
//	get [-s] path
//	set [-s] [-v version] path data
//	create [-s] [-e] [-c] [-t ttl] path [data] [acl]
//	delete [-v version] path
//	deleteall path [-b batch size]
//	stat path
//	getAcl [-s] path
//	setAcl [-s] [-v version] [-R] path acl
//	addauth scheme auth [cmd args...]
//	sync path
//	getEphemerals [path]
//	getAllChildrenNumber path
//	config [-w] [-s]
//	history, redo cmdno, printwatches on|off, connect host:port, close, quit
//
// Output goes to standard output exactly as zkCli.sh writes it ("[a, b]" for
// ls, the data then "cZxid = 0x..." lines for get -s, "'world,'anyone" and
// ": cdrwa" for getAcl, ...); messages zkCli.sh writes to standard error
// ("Created /x", errors such as "Node does not exist: /x") go to standard
// error. A failed command exits with status 1, a usage error with status 1
// after the command's usage line, an unknown command with status 127.
//
// Authentication: -auth scheme:auth (repeatable) and a leading
// "addauth scheme auth" both add credentials to the session before the
// command runs, so "zkcli addauth digest u:p get /x" works in one shot.
//
// zkcli's own flags come before the command; everything after the
// command's name is the command's, as in zkCli.sh. Data is printed as the
// node holds it: zkCli.sh decodes it as UTF-8 and prints U+FFFD for bytes
// that are not, zkcli writes the bytes unchanged.
//
// --json makes ls, get and stat print one JSON object instead (see
// jsonout.go for its fields); other commands ignore it.
//
// A session (repl.go) is zkCli.sh's: on a terminal, its prompt
// "[zk: host:port(CONNECTED) N] ", line editing, Tab completion of command
// names and znode paths (complete.go) and recall of earlier lines kept in
// ~/.zkcli_history or $ZKCLI_HISTORY (history.go, terminal.go); from a pipe,
// lines with no prompt. -w sets watches there, and their events and the
// connection's state changes print as zkCli.sh's watcher prints them
// (watcher.go, console.go). The session's commands are in sessioncmds.go,
// its connection in session.go. It ends at quit or the end of the input
// with the last line's status.
//
// getEphemerals and getAllChildrenNumber use requests go-zookeeper does not
// offer, so zkcli sends them on a second, short-lived session of its own
// (raw.go) that carries the same credentials. In one-shot mode the session
// asking getEphemerals has created nothing, so, as with zkCli.sh's one-shot
// mode, it lists no nodes; in a session, getEphemerals finds the session's
// own ephemerals by walking the tree (ephemerals.go).
package main
