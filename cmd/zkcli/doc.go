// Command zkcli is a JVM-free command-line client for ZooKeeper-compatible
// servers (zkraft and Apache ZooKeeper), built on the stock go-zookeeper
// client. It takes zkCli.sh's command syntax and, where scripts parse it,
// prints what ZooKeeper 3.8's zkCli.sh prints.
//
// One command per invocation (zkCli.sh's one-shot mode), or, with no
// command, an interactive session reading commands from standard input:
//
//	zkcli [-server connect-string] [-auth scheme:auth]... [-timeout d] [--json] [TLS flags] [cmd args...]
//
// -server takes zkCli.sh's connect string (Java's ConnectStringParser;
// connstring.go): host:port entries separated by commas, the port 2181 when
// left out, IPv6 literals in brackets ([::1] or [::1]:2181), then an
// optional chroot from the first '/' (host1:2181,host2:2181/app), which
// must be a valid znode path ("/" alone means none). go-zookeeper tries the
// addresses in a random order, as Java's client does, and a host whose
// name does not resolve is skipped. A connect string that does not parse
// ends zkcli with ZooKeeper's message ("Path must not end with /
// character", "port out of range:99999", ...).
//
// Under a chroot every path a command names is the client's path, below
// the chroot, as in zkCli.sh: the connection (chroot.go's zkConn, which
// wraps go-zookeeper's) prefixes the chroot to every path it sends and
// strips it from every path the server returns (create's, multi's) and
// from watch events (session.go, watchcmd.go); the tap's requests take the
// chroot too. As in zkCli.sh, /zookeeper and the quota nodes are the
// chroot's own (setquota writes <chroot>/zookeeper/quota), config reads the
// server's /zookeeper/config, and getEphemerals sends its prefix as given
// and prints the server's paths. export and import name the client's
// paths in the file.
//
// Commands:
//
//	ls [-s] [-w] [-R] path
//	get [-s] [-w] path
//	set [-s] [-v version] path data
//	create [-s] [-e] [-c] [-t ttl] path [data] [acl]
//	delete [-v version] path
//	deleteall path [-b batch size]
//	stat [-w] path
//	getAcl [-s] path
//	setAcl [-s] [-v version] [-R] path acl
//	addauth scheme auth [cmd args...]
//	sync path
//	getEphemerals [path]
//	getAllChildrenNumber path
//	config [-c] [-w] [-s]
//	reconfig [-s] [-v version] [-file path | -members list | -add list -remove ids]
//	whoami
//	setquota -n|-b|-N|-B val path
//	listquota path
//	delquota [-n|-b|-N|-B] path
//	addWatch [-m mode] path
//	removewatches path [-c|-d|-a] [-l]
//	history, redo cmdno, printwatches on|off, connect connect-string, close, quit
//
// and zkcli's own:
//
//	tree [-s] [path]
//	watch [-R] [-n count] path
//	export path [file]
//	import [-o] [-e] file [path]
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
// --json makes ls, get, stat and tree print one JSON object instead, and
// watch one per event (see jsonout.go for the fields); other commands
// ignore it.
//
// A session (repl.go) is zkCli.sh's: on a terminal, its prompt
// "[zk: connect-string(CONNECTED) N] ", line editing, Tab completion of command
// names and znode paths (complete.go) and recall of earlier lines kept in
// ~/.zkcli_history or $ZKCLI_HISTORY (history.go, terminal.go); from a pipe,
// lines with no prompt. Watches set there (get -w, ls -w, stat -w,
// config -w, addWatch) and the connection's state changes print as
// zkCli.sh's watcher prints them, printwatches deciding (watcher.go,
// console.go); the session keeps its watches as Java's client does, so a
// one-shot watch prints once and removewatches reports the watches it
// removed (sessionwatches.go). The session's commands are in
// sessioncmds.go, its connection in session.go. It ends at quit or the end
// of the input with the last line's status.
//
// whoami, addWatch, removewatches, reconfig, getEphemerals and
// getAllChildrenNumber use requests go-zookeeper v1.0.4 does not offer
// (or, for reconfig, whose reply it drops). zkcli sends them on
// go-zookeeper's own connection, in the same session, through a tap on the
// connection (sessiontap.go), so they carry the session's credentials and
// see its watches and ephemerals. In one-shot mode the session asking
// getEphemerals has created nothing, so, as with zkCli.sh's one-shot mode,
// it lists no nodes; in a session it lists the session's ephemerals. Every
// connection, the first, connect's and go-zookeeper's reconnections, is
// made by one dialer (client.open, tls.go's dialOption), so the tap and
// TLS apply alike in both modes; connect starts a new tap with its new
// session.
//
// TLS: -tls-ca, -tls-cert, -tls-key and -tls-server-name take PEM files;
// -client-configuration reads a Java properties file as zkCli.sh does
// (zookeeper.client.secure=true and the zookeeper.ssl.* keys, JKS, PKCS#12
// and PEM stores). SASL: DIGEST-MD5 with a JAAS file's Client section
// (-Djava.security.auth.login.config, also from $CLIENT_JVMFLAGS or the
// -client-configuration file) or -sasl-user and -sasl-password-file; the
// tap logs in on every connection before go-zookeeper sees it (sasl.go,
// sasltap.go; the mechanism is auth/digestmd5). No GSSAPI.
package main
