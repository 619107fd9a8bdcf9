// Package recipes will hold the classic ZooKeeper recipes (locks, elections,
// barriers, queues, two-phase commit) written on the stock
// github.com/go-zookeeper/zk client only. It must never import the server.
// The recipes themselves are the subject of their own issue; this package
// holds no code yet.
package recipes
