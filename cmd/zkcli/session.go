package main

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// session is the state of an interactive zkcli (zkCli.sh's ZooKeeperMain):
// the numbered history, printwatches, the connection and the status of
// the last command, which is zkcli's exit status when the session ends.
type session struct {
	hist         *cmdHistory
	printWatches atomic.Bool
	exitCode     int
	quit         bool // quit ran: the session ends
	con          *console
	link         *link // the current connection; nil when none could be made
}

func newSession() *session {
	s := &session{hist: newCmdHistory()}
	s.printWatches.Store(true)
	return s
}

// link is one connection of a session. gone is set once it was closed by
// close, connect or quit, or by the server expiring its session; its
// events are then no longer printed.
type link struct {
	conn *zkConn
	// chroot is the connect string's chroot, which the paths of the
	// events lose before they are printed (chroot.go).
	chroot string
	gone   atomic.Bool
	ready  chan struct{} // closed once conn and sasl are set
	// last is the last state event printed: go-zookeeper reports
	// Disconnected after every failed attempt to reconnect, zkCli.sh once.
	last atomic.Value
	// watches are the watches set on the connection's session, which
	// decide which notifications print (sessionwatches.go).
	watches *watchTable
	// sasl is the connection's SASL login (nil without); authFailed is
	// set once it failed: the connection is then in AUTH_FAILED, as
	// Java's client, and prints nothing more.
	sasl       *saslLogin
	authFailed atomic.Bool
	// credsAdded, when the first try did not connect, is closed once the
	// -auth credentials went with the session (authWhenConnected).
	credsAdded chan struct{}
}

// state returns the client's session state (a fresh one in one-shot mode,
// where history, redo and printwatches work as in one-shot zkCli.sh).
func (c *client) state() *session {
	if c.sess == nil {
		return newSession()
	}
	return c.sess
}

// alive reports whether commands can run: Java's ZooKeeper.States.isAlive
// (connecting or connected; not closed or failed authentication).
func (c *client) alive() bool {
	if c.sess == nil {
		return true
	}
	l := c.sess.link
	return l != nil && !l.gone.Load() && !l.authFailed.Load() && l.conn.State() != zk.StateAuthFailed
}

// stateName is the connection's state as zkCli.sh's prompt shows it (the
// name of Java's ZooKeeper.States).
func (c *client) stateName() string {
	if !c.alive() {
		if l := c.sess.link; l != nil && !l.gone.Load() {
			return "AUTH_FAILED"
		}
		return "CLOSED"
	}
	if c.conn.State() == zk.StateHasSession {
		return "CONNECTED"
	}
	return "CONNECTING"
}

// prompt is zkCli.sh's prompt: "[zk: host:port(STATE) N] ".
func (c *client) prompt() string {
	return fmt.Sprintf("[zk: %s(%s) %d] ", c.server, c.stateName(), c.sess.hist.count)
}

// closedEvent is the event zkCli.sh's watcher gets when the client is
// closed (by close, quit or connect; not at the end of the input, where
// zkCli.sh exits without closing).
const closedEvent = "WatchedEvent state:Closed type:None path:null"

// hangUp closes the session's connection, if any, and with announce
// prints the Closed event; the connection's own events are no longer
// printed.
func (c *client) hangUp(announce bool) {
	if l := c.sess.link; l != nil && !l.gone.Swap(true) {
		l.conn.Close()
		if announce {
			c.sess.con.event(watcherText(closedEvent))
		}
	}
}

// dial replaces the session's connection by a new one to server (through
// open, so with TLS and a fresh session tap), waits until the server
// grants a session or every address has been tried once (go-zookeeper goes
// on trying in the background, as Java's client does; the prompt then
// shows CONNECTING), and adds the -auth credentials.
//
// A connect string that does not parse leaves the session as it was (zkCli.sh
// closes it, then ends with the exception).
func (c *client) dial(server string) error {
	_, chroot, err := parseConnString(server)
	if err != nil {
		return err
	}
	c.hangUp(true)
	c.sess.link = nil
	c.server = server
	l := &link{ready: make(chan struct{}), watches: newWatchTable(), chroot: chroot}
	conn, events, err := c.open(server, zk.WithEventCallback(c.onEvent(l)))
	if err != nil {
		return err
	}
	l.conn = conn
	c.conn, c.sess.link = conn, l
	l.sasl = c.tap.sasl
	close(l.ready)
	if !firstTry(events, l.sasl.failedCh(), c.timeout, conn.hosts.Len()) {
		// go-zookeeper goes on trying: the credentials follow the session.
		l.credsAdded = make(chan struct{})
		go c.authWhenConnected(l, events)
		return nil
	}
	return c.addAuths(conn)
}

// authWhenConnected adds the -auth credentials to l's connection once it
// has a session, if it ever does; go-zookeeper then sends them again
// after each reconnection itself. A failure prints between prompts, as a
// watcher's event does.
func (c *client) authWhenConnected(l *link, events <-chan zk.Event) {
	defer close(l.credsAdded)
	if len(c.auths) == 0 {
		return
	}
	for ev := range events {
		if l.gone.Load() || l.authFailed.Load() {
			return
		}
		if ev.State == zk.StateHasSession {
			if err := c.addAuths(l.conn); err != nil && !l.gone.Load() {
				c.sess.con.event(err.Error() + "\n")
			}
			return
		}
	}
}

// awaitCreds holds a command typed just after a late connection until its
// -auth credentials are added, so the command runs with them.
func (c *client) awaitCreds() {
	if c.sess == nil || c.sess.link == nil {
		return
	}
	l := c.sess.link
	if l.credsAdded == nil || l.conn.State() != zk.StateHasSession {
		return
	}
	select {
	case <-l.credsAdded:
	case <-time.After(c.timeout):
	}
}

// saslFailed reports whether l's SASL login failed, and the first time
// puts l in AUTH_FAILED: the error prints on standard error and the
// AuthFailed event as zkCli.sh's watcher gets it, and the connection closes (go-zookeeper
// would go on trying). The tap fails the login before go-zookeeper sees
// the connection fail, so this runs at the Disconnected event that
// follows.
func (c *client) saslFailed(l *link) bool {
	<-l.ready
	err := l.sasl.failure()
	if err == nil {
		return false
	}
	if !l.authFailed.Swap(true) {
		fmt.Fprintln(c.errw, err)
		c.sess.con.event(watcherText("WatchedEvent state:AuthFailed type:None path:null"))
		go l.conn.Close()
	}
	return true
}

// firstTry waits on a new connection's events until it has a session
// (true), or its session or SASL login failed, or it has tried each of
// its n addresses once and is trying the first again, or timeout passed
// (false). It waits for the event, not
// the state, so the session's callback has seen the event when it returns.
func firstTry(events <-chan zk.Event, saslFailed <-chan struct{}, timeout time.Duration, n int) bool {
	deadline := time.After(timeout)
	tries := 0
	for {
		select {
		case ev, ok := <-events:
			switch {
			case !ok, ev.State == zk.StateAuthFailed, ev.State == zk.StateExpired:
				return false
			case ev.State == zk.StateDisconnected && closed(saslFailed):
				return false // the callback has put the link in AUTH_FAILED
			case ev.State == zk.StateHasSession:
				return true
			case ev.State == zk.StateConnecting:
				tries++
				if tries > max(n, 1) {
					return false
				}
			}
		case <-deadline:
			return false
		}
	}
}

// closed reports whether ch is closed (false for nil).
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return ch != nil
	default:
		return false
	}
}

// onEvent returns l's event callback: it queues what zkCli.sh's watcher
// would print. An expired session ends the connection, as in Java, where
// the client is closed then (go-zookeeper would open a new session).
func (c *client) onEvent(l *link) zk.EventCallback {
	return func(ev zk.Event) {
		if l.gone.Load() || l.authFailed.Load() {
			return
		}
		if ev.Type == zk.EventSession && ev.State == zk.StateDisconnected && c.saslFailed(l) {
			return
		}
		if ev.Type == zk.EventSession && ev.State == zk.StateExpired {
			l.gone.Store(true)
			go func() { <-l.ready; l.conn.Close() }()
		}
		ev.Path = (&zkConn{chroot: l.chroot}).clientPath(ev.Path)
		text, ok := watchedEvent(ev)
		if ev.Type == zk.EventSession && ok && l.last.Swap(text) == text {
			return
		}
		if ok && ev.Type != zk.EventSession && !l.watches.fire(ev.Type, ev.Path) {
			return // no watch zkCli.sh would know of (watch's own, or one removed)
		}
		if ok {
			c.sess.con.event(watcherText(text))
		}
		if ev.Type == zk.EventSession && ev.State == zk.StateHasSession && l.loggedIn() {
			// The tap logged in before go-zookeeper had the session; Java's
			// client reports the login after SyncConnected.
			c.sess.con.event(watcherText(saslAuthenticatedEvent))
		}
	}
}

// loggedIn reports whether l logs in by SASL (once dial has set l.sasl).
func (l *link) loggedIn() bool {
	<-l.ready
	return l.sasl != nil
}

// saslAuthenticatedEvent is the event Java's client sends its watcher
// when a SASL login succeeded, on every connection.
const saslAuthenticatedEvent = "WatchedEvent state:SaslAuthenticated type:None path:null"
