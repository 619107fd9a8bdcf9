package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-zookeeper/zk"
)

// parseACL parses "scheme:id:perm[,...]" as zkCli.sh's AclParser does:
// entries without two colons and unknown permission letters are reported
// on w and skipped.
func parseACL(w io.Writer, s string) []zk.ACL {
	acl := []zk.ACL{}
	for _, a := range strings.Split(s, ",") {
		first, last := strings.Index(a, ":"), strings.LastIndex(a, ":")
		if first == -1 || first == last {
			fmt.Fprintf(w, "%s does not have the form scheme:id:perm\n", a)
			continue
		}
		acl = append(acl, zk.ACL{Scheme: a[:first], ID: a[first+1 : last], Perms: parsePerms(w, a[last+1:])})
	}
	return acl
}

// parsePerms turns permission letters (rwcda) into ZooKeeper's bits.
func parsePerms(w io.Writer, s string) int32 {
	var p int32
	for _, r := range s {
		switch r {
		case 'r':
			p |= zk.PermRead
		case 'w':
			p |= zk.PermWrite
		case 'c':
			p |= zk.PermCreate
		case 'd':
			p |= zk.PermDelete
		case 'a':
			p |= zk.PermAdmin
		default:
			fmt.Fprintf(w, "Unknown perm type: %c\n", r)
		}
	}
	return p
}

// permString is ZKUtil.getPermString: the letters in the order cdrwa.
func permString(p int32) string {
	var b strings.Builder
	for _, x := range []struct {
		bit    int32
		letter byte
	}{{zk.PermCreate, 'c'}, {zk.PermDelete, 'd'}, {zk.PermRead, 'r'}, {zk.PermWrite, 'w'}, {zk.PermAdmin, 'a'}} {
		if p&x.bit != 0 {
			b.WriteByte(x.letter)
		}
	}
	return b.String()
}

// cmdGetACL is "getAcl [-s] path": per entry Java's Id.toString (a line
// "'scheme,'id") then ": perms".
func cmdGetACL(c *client, o *options) error {
	path := o.args[1]
	if err := validatePath(path); err != nil {
		return err
	}
	acl, st, err := c.conn.GetACL(path)
	if err != nil {
		return cliMessage(err, path)
	}
	for _, a := range acl {
		fmt.Fprintf(c.out, "'%s,'%s\n: %s\n", a.Scheme, a.ID, permString(a.Perms))
	}
	if o.has('s') {
		printStat(c.out, st)
	}
	return nil
}

// cmdSetACL is "setAcl [-s] [-v version] [-R] path acl". With -R it sets
// the ACL on every node of the subtree in ls -R's order and, as zkCli.sh
// does, prints each failure's message on standard output with no newline.
func cmdSetACL(c *client, o *options) error {
	acl := parseACL(c.errw, o.args[2])
	path, v, err := o.versionedPath()
	if err != nil {
		return err
	}
	if !o.has('R') {
		if len(acl) == 0 {
			// ZooKeeper.setACL rejects an empty ACL before sending it.
			return errors.New("Acl is not valid : null")
		}
		st, err := c.conn.SetACL(path, acl, v)
		if err != nil {
			return cliMessage(err, path)
		}
		if o.has('s') {
			printStat(c.out, st)
		}
		return nil
	}
	return c.visitDFS(path, func(p string) {
		if len(acl) == 0 {
			fmt.Fprint(c.out, "KeeperErrorCode = InvalidACL")
		} else if _, err := c.conn.SetACL(p, acl, v); err != nil {
			fmt.Fprint(c.out, keeperErr(err, p))
		}
	})
}

// cmdAddAuth is "addauth scheme [auth]" as the command itself: the
// credentials are added to the session (which, in one-shot mode, then
// ends).
func cmdAddAuth(c *client, o *options) error {
	var auth []byte
	if len(o.args) > 2 {
		auth = []byte(o.args[2])
	}
	return c.conn.AddAuth(o.args[1], auth)
}
