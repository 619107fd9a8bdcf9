package treejson

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"
)

// existing handles a node the import finds in place: one with the
// export's data and ACL that is not an ephemeral is left alone (a rerun
// of an interrupted import resumes past it); another is set to the
// export's data and ACL with Overwrite, and stops the import without it.
// The root ("/") always exists: without Overwrite it is left as it is.
func (im *importer) existing(path string, n Node) error {
	data, st, err := im.conn.Get(path)
	if err != nil {
		return fmt.Errorf("treejson: %s exists but cannot be read: %w", path, err)
	}
	acl, _, err := im.conn.GetACL(path)
	if err != nil {
		return fmt.Errorf("treejson: %s exists but its ACL cannot be read: %w", path, err)
	}
	diff := differences(data, acl, st, n)
	switch {
	case diff == "":
		im.count1(&im.stats.Unchanged)
		return nil
	case im.opts.Overwrite:
		return im.update(path, n)
	case path == "/":
		return nil
	}
	return fmt.Errorf("%w: %s, with %s than the export's; refusing to change it (ask for overwrite to set the data and ACLs of existing nodes)",
		ErrExists, path, diff)
}

// differences says how an existing node differs from the exported one:
// "" when it does not.
func differences(data []byte, acl []zk.ACL, st *zk.Stat, n Node) string {
	var what []string
	if !bytes.Equal(data, n.Data) {
		what = append(what, fmt.Sprintf("other data (%d bytes, not %d)", len(data), len(n.Data)))
	}
	if !sameACL(acl, toZK(n.ACL)) {
		what = append(what, "another ACL")
	}
	if st != nil {
		if mode, _ := modeOf(st.EphemeralOwner); mode == ModeEphemeral {
			what = append(what, fmt.Sprintf("an ephemeral owner (session %#x)", st.EphemeralOwner))
		}
	}
	return strings.Join(what, " and ")
}

// sameACL compares two ACLs as sets: a server may keep the entries in
// another order, and ZooKeeper drops repeated ones.
func sameACL(a, b []zk.ACL) bool {
	as, bs := aclSet(a), aclSet(b)
	if len(as) != len(bs) {
		return false
	}
	for x := range as {
		if _, ok := bs[x]; !ok {
			return false
		}
	}
	return true
}

func aclSet(acl []zk.ACL) map[zk.ACL]struct{} {
	set := make(map[zk.ACL]struct{}, len(acl))
	for _, a := range acl {
		set[a] = struct{}{}
	}
	return set
}

// update sets an existing node's data and ACL (Overwrite).
func (im *importer) update(path string, n Node) error {
	if _, err := im.conn.Set(path, n.Data, -1); err != nil {
		return fmt.Errorf("treejson: set %s: %w", path, err)
	}
	if _, err := im.conn.SetACL(path, toZK(n.ACL), -1); err != nil {
		if errors.Is(err, zk.ErrNoAuth) {
			return fmt.Errorf("treejson: set ACL of %s: %w (import as the super user)", path, err)
		}
		return fmt.Errorf("treejson: set ACL of %s: %w", path, err)
	}
	im.count1(&im.stats.Updated)
	return nil
}
