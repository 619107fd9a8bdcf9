package server

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/wire"
)

// This file is the read-only view of the tree and the sessions that the
// web console's tree browser shows. Every call takes the state's read lock
// once, as the four-letter words do, and copies out what it returns.

// ErrBadPath is returned for a path ZooKeeper would refuse.
var ErrBadPath = errors.New("server: invalid znode path")

// ZnodeView is one znode as the console shows it.
type ZnodeView struct {
	Path string
	// Data holds at most the first maxData bytes of the node's data;
	// DataTruncated says the rest was cut. Null is true when the node was
	// created with null data.
	Data          []byte
	DataTruncated bool
	Null          bool
	Stat          wire.Stat
	ACL           []wire.ACL
	// Children holds at most maxChildren names, sorted; ChildrenTruncated
	// says more exist (Stat.NumChildren counts them all).
	Children          []string
	ChildrenTruncated bool
	// Hidden says the caller may not read the node (its ACL grants them
	// no READ): Data and Children are left out, as getData and
	// getChildren would refuse them; Stat and ACL are shown, as exists
	// and getACL show them.
	Hidden bool
}

// Znode returns the node at path with its data cut at maxData bytes and
// its child list at maxChildren names, as cred may read it (ReaderIDs).
// It fails with ErrBadPath (wrapping the reason) for an invalid path,
// wire.CodeNoNode for a missing node, and AuthorizeAdmin's errors for
// credentials that do not authenticate.
func (s *Server) Znode(cred AdminCredentials, path string, maxData, maxChildren int) (ZnodeView, error) {
	if err := validPath(path); err != nil {
		return ZnodeView{}, err
	}
	if s.node == nil {
		return ZnodeView{}, ErrNotStarted
	}
	ids, err := s.ReaderIDs(cred)
	if err != nil {
		return ZnodeView{}, err
	}
	v := ZnodeView{Path: path}
	s.node.Read(func(st *consensus.State) {
		var data []byte
		if data, v.Stat, err = st.Tree.GetData(path); err != nil {
			return
		}
		v.ACL, _, _ = st.Tree.GetACL(path)
		if st.Tree.CheckACL(path, wire.PermRead, ids) != nil {
			v.Hidden = true
			return
		}
		v.Null = data == nil
		v.Data, v.DataTruncated = clip(data, maxData)
		v.Children, _, _ = st.Tree.GetChildren(path)
	})
	if err != nil {
		return ZnodeView{}, err
	}
	if len(v.Children) > maxChildren {
		v.Children, v.ChildrenTruncated = slices.Clip(v.Children[:maxChildren]), true
	}
	return v, nil
}

// clip copies at most max bytes of b.
func clip(b []byte, max int) ([]byte, bool) {
	if len(b) > max {
		return slices.Clone(b[:max]), true
	}
	return slices.Clone(b), false
}

// validPath checks path as a client request's path is checked.
func validPath(path string) error {
	if err := datatree.ValidatePath(path); err != nil {
		return fmt.Errorf("%w: %q must start with '/', not end with '/' (except \"/\"), and have no empty, \".\" or \"..\" segment nor control characters", ErrBadPath, path)
	}
	return nil
}

// SearchPaths returns, in path order, the paths of the nodes whose path
// starts with prefix (a path or a partial one: "/app/us" finds "/app/users"
// and all below it), at most limit of them; more says the search stopped
// there. The prefix must start with '/'. It lists only the children of
// nodes cred may read (ReaderIDs), as getChildren would.
func (s *Server) SearchPaths(cred AdminCredentials, prefix string, limit int) (paths []string, more bool, err error) {
	dir, name := splitPrefix(prefix)
	if err := validPath(dir); err != nil {
		return nil, false, err
	}
	if s.node == nil {
		return nil, false, ErrNotStarted
	}
	ids, err := s.ReaderIDs(cred)
	if err != nil {
		return nil, false, err
	}
	s.node.Read(func(st *consensus.State) {
		if name == "" && st.Tree.Exists(dir) {
			paths = append(paths, dir) // the prefix is itself a node
		}
		more = searchBelow(st.Tree, ids, dir, name, limit, &paths)
	})
	if len(paths) > limit {
		paths, more = paths[:limit], true
	}
	return paths, more, nil
}

// splitPrefix splits a search prefix into the directory to list and the
// start of the child names to keep: "/a/b" is ("/a", "b"), "/a/" is
// ("/a", ""), "/" is ("/", "").
func splitPrefix(prefix string) (dir, name string) {
	i := strings.LastIndexByte(prefix, '/')
	if i < 0 {
		return prefix, "" // no '/': validPath refuses it
	}
	dir, name = prefix[:i], prefix[i+1:]
	if dir == "" {
		dir = "/"
	}
	return dir, name
}

// searchBelow appends, in pre-order, dir's descendants under the children
// whose name starts with name, stopping once more than limit paths are
// held; it returns whether it stopped early. Nodes ids may not read are
// listed but not entered.
func searchBelow(t *datatree.Tree, ids []wire.Id, dir, name string, limit int, out *[]string) bool {
	if t.CheckACL(dir, wire.PermRead, ids) != nil {
		return false
	}
	kids, _, err := t.GetChildren(dir)
	if err != nil {
		return false
	}
	base := dir
	if base == "/" {
		base = ""
	}
	for _, k := range kids {
		if !strings.HasPrefix(k, name) {
			continue
		}
		if len(*out) > limit {
			return true
		}
		p := base + "/" + k
		*out = append(*out, p)
		if searchBelow(t, ids, p, "", limit, out) {
			return true
		}
	}
	return len(*out) > limit
}
