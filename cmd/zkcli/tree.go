package main

import (
	"errors"
	"sort"

	"github.com/go-zookeeper/zk"
)

// childPath joins a parent path and a child's name.
func childPath(parent, name string) string {
	if parent == "/" {
		return "/" + name
	}
	return parent + "/" + name
}

// visitDFS calls fn on path and on each of its descendants in the order of
// ZooKeeper's ZKUtil.visitSubTreeDFS (which ls -R and setAcl -R use): the
// root, then a node's children in sorted order, then each child's subtree.
// The root must be readable (its data is read first, as Java does); a node
// deleted while the walk runs is skipped.
func (c *client) visitDFS(path string, fn func(p string)) error {
	return c.visitDFSWatch(path, false, fn)
}

// visitDFSWatch is visitDFS, leaving a data watch on path and a child
// watch on every node visited when watch is set.
func (c *client) visitDFSWatch(path string, watch bool, fn func(p string)) error {
	if _, _, err := c.getData(path, watch); err != nil {
		return cliMessage(err, path)
	}
	fn(path)
	var walk func(p string) error
	walk = func(p string) error {
		children, _, err := c.children(p, watch)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return cliMessage(err, p)
		}
		sort.Strings(children)
		for _, ch := range children {
			fn(childPath(p, ch))
		}
		for _, ch := range children {
			if err := walk(childPath(p, ch)); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(path)
}

// listBFS lists path and its descendants breadth first, as
// ZKUtil.listSubTreeBFS does for deleteall.
func (c *client) listBFS(path string) ([]string, error) {
	tree := []string{path}
	for i := 0; i < len(tree); i++ {
		children, _, err := c.conn.Children(tree[i])
		if err != nil {
			return nil, cliMessage(err, tree[i])
		}
		for _, ch := range children {
			tree = append(tree, childPath(tree[i], ch))
		}
	}
	return tree, nil
}
