package recipes

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// multi runs ops (*zk.CreateRequest, *zk.SetDataRequest, *zk.DeleteRequest,
// *zk.CheckVersionRequest) as one ZooKeeper multi whose first operation
// checks that the grant node still exists with the version it was granted
// at. Either the check and every op succeed together, or nothing changes.
//
// It returns the ops' own results (one per op, in order, without the
// check's) and:
//   - nil when everything ran;
//   - an error wrapping ErrGrantLost and the check's failure (zk.ErrNoNode:
//     the node is gone, its session expired; zk.ErrBadVersion: someone
//     rewrote it) when the grant no longer holds: nothing ran;
//   - the first failing op's error (e.g. zk.ErrNodeExists) when the grant
//     holds but an op failed: nothing ran, and the results say which;
//   - zk.ErrConnectionClosed (and no results) when the reply was lost: the
//     multi may or may not have run.
//
// The server decides, not the client's view of the hold: it is sent even
// if the hold's watch has reported the grant lost.
func (g grantRef) multi(ctx context.Context, ops []any) ([]zk.MultiResponse, error) {
	stat, err := g.watch.grantStat(ctx)
	if errors.Is(err, ErrSessionLost) {
		return nil, fmt.Errorf("%w: %w", ErrGrantLost, err)
	}
	if err != nil {
		return nil, err
	}
	all := make([]any, 0, 1+len(ops))
	all = append(all, &zk.CheckVersionRequest{Path: g.node, Version: stat.Version})
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
