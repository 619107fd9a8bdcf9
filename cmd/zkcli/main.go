package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkraft/zkraft/internal/buildinfo"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// authInfo is one credential added to the session (-auth or addauth).
type authInfo struct {
	scheme string
	auth   []byte
}

// client is one zkcli invocation: its options, its session and where it
// writes.
type client struct {
	server  string
	timeout time.Duration
	json    bool
	auths   []authInfo
	conn    *zkConn     // the session's connection, under the connect string's chroot (chroot.go)
	tap     *sessionTap // zkcli's own requests on conn's session (sessiontap.go)
	tls     tlsOptions
	sasl    saslOptions
	out     io.Writer // the command's output (zkCli.sh's System.out)
	errw    io.Writer // messages zkCli.sh writes to System.err
	sess    *session  // the interactive session (repl.go); nil in one-shot mode
}

// authFlag collects repeated -auth scheme:auth flags.
type authFlag struct{ list *[]authInfo }

func (a authFlag) String() string { return "" }

func (a authFlag) Set(v string) error {
	scheme, auth, ok := strings.Cut(v, ":")
	if !ok || scheme == "" {
		return fmt.Errorf("-auth wants scheme:auth, not %q", v)
	}
	*a.list = append(*a.list, authInfo{scheme, []byte(auth)})
	return nil
}

// run runs one zkcli invocation, reading a session's commands from the
// process's standard input, and returns its exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(args, os.Stdin, stdout, stderr)
}

// runWith is run reading a session's commands from stdin.
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &client{out: stdout, errw: stderr}
	fs := flag.NewFlagSet("zkcli", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.server, "server", "localhost:2181", "the servers, as zkCli.sh's `connect-string`: host[:port][,host[:port]...][/chroot] (the port defaults to 2181; IPv6 in brackets, [::1]:2181; the chroot is the root of every path the commands name)")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "session timeout; also how long to wait for a session")
	fs.BoolVar(&c.json, "json", false, "print ls, get, stat, tree and watch as JSON")
	showVersion := fs.Bool("version", false, "print zkcli's version, then exit")
	fs.Var(authFlag{&c.auths}, "auth", "add `scheme:auth` credentials to the session before the command (repeatable)")
	c.tls.register(fs)
	c.sasl.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: zkcli [-server host[:port][,host[:port]...][/chroot]] [-auth scheme:auth]... [-timeout d] [--json] [TLS flags] [SASL flags] [cmd args...]")
		fs.PrintDefaults()
		printCommands(stderr)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	if *showVersion {
		fmt.Fprintln(stdout, "zkcli", buildinfo.Line())
		return 0
	}
	// A connect string that does not parse ends zkcli at once, in a
	// session too, as the exception ends zkCli.sh.
	if _, _, err := parseConnString(c.server); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	words := fs.Args()
	// Leading "addauth scheme auth" words apply to the session, as if
	// zkCli.sh had run addauth before the command.
	for len(words) > 3 && words[0] == "addauth" {
		c.auths = append(c.auths, authInfo{words[1], []byte(words[2])})
		words = words[3:]
	}
	if len(words) == 0 {
		return c.repl(stdin, stdout, stderr)
	}
	cmd, ok := commands[words[0]]
	if !ok {
		printCommands(stderr)
		fmt.Fprintf(stderr, "Command not found: Command not found %s\n", words[0])
		return 127
	}
	o, err := parseOptions(cmd, words)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if !cmd.offline {
		if err := c.connect(); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		defer c.conn.Close()
	}
	if err := cmd.run(c, o); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// quiet discards go-zookeeper's log lines, which zkCli.sh does not print.
type quiet struct{}

func (quiet) Printf(string, ...interface{}) {}

// open starts a connection to the connect string server with
// go-zookeeper, which picks among its hosts as Java's client does,
// through dialOption's dialer (TLS when asked for, and a fresh session
// tap): the one way zkcli connects, in one-shot mode and in a session.
// The connection applies the connect string's chroot (chroot.go). extra
// is one more go-zookeeper option (the session's event callback), or nil.
func (c *client) open(server string, extra func(*zk.Conn)) (*zkConn, <-chan zk.Event, error) {
	servers, chroot, err := parseConnString(server)
	if err != nil {
		return nil, nil, err
	}
	dial, err := c.dialOption()
	if err != nil {
		return nil, nil, err
	}
	if extra == nil {
		extra = func(*zk.Conn) {}
	}
	hosts := &hostList{}
	conn, events, err := zk.Connect(servers, c.timeout, zk.WithLogger(quiet{}), zk.WithHostProvider(hosts), dial, extra)
	if err != nil {
		return nil, nil, fmt.Errorf("Unable to connect to %s: %v", server, err)
	}
	return &zkConn{Conn: conn, chroot: chroot, hosts: hosts}, events, nil
}

// connect opens the session, waits until the server has granted it and adds
// the credentials.
func (c *client) connect() error {
	conn, events, err := c.open(c.server, nil)
	if err != nil {
		return err
	}
	deadline := time.After(c.timeout)
	for conn.State() != zk.StateHasSession {
		select {
		case ev := <-events:
			if ev.State == zk.StateAuthFailed || ev.State == zk.StateExpired {
				conn.Close()
				return fmt.Errorf("Unable to connect to %s: %v", c.server, ev.State)
			}
		case <-c.tap.sasl.failedCh():
			conn.Close()
			return fmt.Errorf("Unable to connect to %s: AUTH_FAILED: %v", c.server, c.tap.sasl.failure())
		case <-deadline:
			conn.Close()
			return fmt.Errorf("Unable to connect to %s: no session after %v", c.server, c.timeout)
		}
	}
	c.conn = conn
	if err := c.addAuths(conn); err != nil {
		conn.Close()
		return err
	}
	return nil
}

// addAuths adds the -auth credentials to conn's session.
func (c *client) addAuths(conn *zkConn) error {
	for _, a := range c.auths {
		if err := conn.AddAuth(a.scheme, a.auth); err != nil {
			return fmt.Errorf("addauth %s: %v", a.scheme, err)
		}
	}
	return nil
}
