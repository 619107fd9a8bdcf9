package main

import (
	"errors"
	"sort"
	"strings"

	"github.com/go-zookeeper/zk"
)

// sessionEphemerals lists the session's own ephemeral nodes whose paths
// start with prefix (a string prefix, as the server's getEphemerals
// matches), sorted. go-zookeeper cannot send getEphemerals on its
// connection, and the request on another connection would ask about that
// connection's session, so zkcli finds them itself: it walks the part of
// the tree that can match (from the prefix's parent down) and keeps the
// nodes whose ephemeralOwner is this session. Nodes zkcli may not list
// are skipped.
func (c *client) sessionEphemerals(prefix string) ([]string, error) {
	owner := c.conn.SessionID()
	dir := prefix[:strings.LastIndex(prefix, "/")]
	if dir == "" {
		dir = "/"
	}
	var found []string
	var walk func(p string, st *zk.Stat) error
	walk = func(p string, st *zk.Stat) error {
		if st.EphemeralOwner == owner && strings.HasPrefix(p, prefix) {
			found = append(found, p)
		}
		if st.NumChildren == 0 {
			return nil
		}
		kids, _, err := c.conn.Children(p)
		if errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrNoAuth) {
			return nil
		}
		if err != nil {
			return cliMessage(err, p)
		}
		for _, k := range kids {
			kp := childPath(p, k)
			if !strings.HasPrefix(kp, prefix) {
				continue
			}
			ok, kst, err := c.conn.Exists(kp)
			if err != nil {
				return cliMessage(err, kp)
			}
			if ok {
				if err := walk(kp, kst); err != nil {
					return err
				}
			}
		}
		return nil
	}
	ok, st, err := c.conn.Exists(dir)
	if err != nil {
		return nil, cliMessage(err, dir)
	}
	if ok {
		err = walk(dir, st)
	}
	sort.Strings(found)
	return found, err
}
