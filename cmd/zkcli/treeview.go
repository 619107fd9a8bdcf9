package main

import (
	"errors"
	"fmt"
	"sort"

	"github.com/go-zookeeper/zk"
)

// treeNode is one node of tree's view; tree --json prints the root as one
// JSON object with its children nested.
type treeNode struct {
	Name        string      `json:"name"`
	Path        string      `json:"path"`
	DataLength  int32       `json:"dataLength"`
	NumChildren int32       `json:"numChildren"`
	Children    []*treeNode `json:"children"`
}

// cmdTree is "tree [-s] [path]" (zkcli's own): the subtree at path (default
// /) drawn with box-drawing lines, children sorted; -s adds each node's
// data size and child count. Nodes deleted during the walk are left out.
func cmdTree(c *client, o *options) error {
	path := "/"
	if len(o.args) > 1 {
		path = o.args[1]
	}
	if err := validatePath(path); err != nil {
		return err
	}
	root, err := c.readTree(path, path)
	if err != nil {
		return err
	}
	if root == nil {
		return cliMessage(zk.ErrNoNode, path)
	}
	if c.json {
		return c.printJSON(root)
	}
	fmt.Fprintln(c.out, root.label(o.has('s')))
	printTreeChildren(c, root, "", o.has('s'))
	return nil
}

// readTree reads the subtree at path; nil when the node is gone.
func (c *client) readTree(name, path string) (*treeNode, error) {
	children, st, err := c.conn.Children(path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, cliMessage(err, path)
	}
	sort.Strings(children)
	n := &treeNode{Name: name, Path: path, DataLength: st.DataLength, NumChildren: st.NumChildren, Children: []*treeNode{}}
	for _, ch := range children {
		kid, err := c.readTree(ch, childPath(path, ch))
		if err != nil {
			return nil, err
		}
		if kid != nil {
			n.Children = append(n.Children, kid)
		}
	}
	return n, nil
}

// label is a node's line: its name, with -s its size and child count.
func (n *treeNode) label(sizes bool) string {
	if !sizes {
		return n.Name
	}
	return fmt.Sprintf("%s [%d bytes, %d children]", n.Name, n.DataLength, n.NumChildren)
}

func printTreeChildren(c *client, n *treeNode, indent string, sizes bool) {
	for i, kid := range n.Children {
		branch, next := "├── ", "│   "
		if i == len(n.Children)-1 {
			branch, next = "└── ", "    "
		}
		fmt.Fprintln(c.out, indent+branch+kid.label(sizes))
		printTreeChildren(c, kid, indent+next, sizes)
	}
}
