package migrate

import (
	"fmt"
	"io"

	"github.com/zkraft/zkraft/consensus"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/session"
)

// Target is the zkraft server an import seeds: the storage, id and
// ensemble it will start with (consensus.Seed).
type Target struct {
	Storage  consensus.Storage
	ServerID int64
	// Peers lists the ensemble's members; empty for a standalone server.
	Peers []consensus.Peer
	// Tree is the tree configuration the server runs with.
	Tree datatree.Config
	// Progress, when set, gets a line every few seconds on large trees.
	Progress io.Writer
}

// configPath is the node each server fills with its own membership when
// it starts; it is not carried over.
const configPath = "/zookeeper/config"

// Tree builds zkraft's tree from the image: every znode with its data,
// ACL and stored Stat, except /zookeeper/config, which starts empty as in
// a new tree (a server writes its own membership there when it starts).
func (im *Image) Tree(cfg datatree.Config, w io.Writer) (*datatree.Tree, error) {
	t := im.tree
	root := t.nodes[""]
	b := datatree.NewBuilder(cfg, stored(root))
	prog := newProgress(w)
	prog.begin("building zkraft's tree: znodes")
	type frame struct {
		path string
		n    *znode
	}
	stack := []frame{{"", root}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for name := range f.n.children {
			p := f.path + "/" + name
			n := t.nodes[p]
			if n == nil || p == configPath {
				continue
			}
			if err := b.Add(p, stored(n)); err != nil {
				return nil, fmt.Errorf("migrate: %w", err)
			}
			prog.step(func() string { return fmt.Sprintf("of %d", len(t.nodes)) })
			stack = append(stack, frame{p, n})
		}
	}
	return b.Finish(), nil
}

// stored converts a ZooKeeper node to datatree's stored form.
func stored(n *znode) datatree.StoredNode {
	s := &n.stat
	return datatree.StoredNode{
		Data: n.data, ACL: n.acl,
		Czxid: s.czxid, Mzxid: s.mzxid, Pzxid: s.pzxid, Ctime: s.ctime, Mtime: s.mtime,
		Version: s.version, Cversion: s.cversion, Aversion: s.aversion, EphemeralOwner: s.ephemeralOwner,
	}
}

// Import seeds the target's data directory with the image: the tree, the
// session table (so an ephemeral lives on as long as its session is
// renewed within its timeout) and the last zxid, from which zkraft's zxids
// continue upwards. It refuses a directory that holds zkraft data.
func Import(im *Image, to Target) error {
	tree, err := im.Tree(to.Tree, to.Progress)
	if err != nil {
		return err
	}
	sessions := session.NewTable()
	for id, timeout := range im.Sessions {
		sessions.Add(id, timeout)
	}
	st := consensus.State{Tree: tree, Sessions: sessions, LastZxid: im.LastZxid}
	return consensus.Seed(to.Storage, to.ServerID, to.Peers, st)
}
