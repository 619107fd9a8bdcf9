package recipes

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// multi runs ops (*zk.CreateRequest, *zk.SetDataRequest, *zk.DeleteRequest,
// *zk.CheckVersionRequest) as one ZooKeeper multi whose first operation
// checks that the grant node still exists. Either the check and every op
// succeed together, or nothing changes.
//
// The check is on existence (version -1), not on the version the node had
// when granted. A grant node's identity is its path, which no one else can
// come to hold: its name carries a random 128-bit tag and a sequence
// number that no other create in the directory gets, and it is ephemeral,
// so it exists exactly while its session lives (or until someone deletes
// it). Its data version, on the other hand, is a signal the recipes use
// while the grant holds: RevocableLock's Revoke and a Semaphore admission
// rewrite the node. Checking the version would turn such a rewrite into a
// lost grant while it is still held, and would not catch the one thing
// existence misses, a node deleted and created again at the same path by
// someone who knows its name, since the new node's version starts at 0.
//
// It returns the ops' own results (one per op, in order, without the
// check's) and:
//   - nil when everything ran;
//   - an error wrapping ErrGrantLost and the server's reason (zk.ErrNoNode:
//     the node is gone, its session expired or someone deleted it;
//     zk.ErrSessionExpired: the request's session had expired) when the
//     grant no longer holds: nothing ran;
//   - the first failing op's error (e.g. zk.ErrNodeExists) when the grant
//     holds but an op failed: nothing ran, and the results say which;
//   - zk.ErrConnectionClosed (and no results) when the reply was lost: the
//     multi may or may not have run.
//
// The server decides, not the client's view of the hold: it is sent even
// if the hold's watch has reported the grant lost.
func (g grantRef) multi(ops []any) ([]zk.MultiResponse, error) {
	all := make([]any, 0, 1+len(ops))
	all = append(all, &zk.CheckVersionRequest{Path: g.node, Version: -1})
	all = append(all, ops...)
	res, err := g.conn.Multi(all...)
	var results []zk.MultiResponse
	if len(res) > 0 {
		results = res[1:]
	}
	switch {
	case err == nil:
		return results, nil
	case errors.Is(err, zk.ErrSessionExpired):
		return results, fmt.Errorf("%w: %w", ErrGrantLost, err)
	case len(res) > 0 && res[0].Error != nil:
		return results, fmt.Errorf("%w: %w", ErrGrantLost, res[0].Error)
	}
	return results, err
}
