package recipes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// protectedPrefix starts every protected node name, followed by a random
// id (32 hex digits) and a dash, the form go-zookeeper's protected create uses.
const protectedPrefix = "_c_"

// seqDigits is the width of the counter ZooKeeper appends to sequential names.
const seqDigits = 10

// openACL is the ACL recipes create nodes with unless told otherwise.
var openACL = zk.WorldACL(zk.PermAll)

// CreateProtected creates dir/<protected prefix><name> with flags (usually
// zk.FlagEphemeral|zk.FlagSequence) and returns its full path. The name
// carries a random id, so when the connection drops before the reply
// arrives it lists dir and finds the node if the create did happen, rather
// than creating a second one and orphaning the first. Missing parents of
// dir are created as persistent nodes.
func CreateProtected(ctx context.Context, conn *zk.Conn, dir, name string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	id, err := randomID()
	if err != nil {
		return "", err
	}
	tag := protectedPrefix + id + "-"
	for {
		p, err := conn.Create(path.Join(dir, tag+name), data, flags, acl)
		switch {
		case err == nil:
			return p, nil
		case errors.Is(err, zk.ErrNoNode):
			if err := ensurePath(ctx, conn, dir, acl); err != nil {
				return "", err
			}
			continue
		case !retryable(err):
			return "", err
		}
		// The reply was lost: did the create happen? Find out even if ctx
		// has ended meanwhile, or a node made by this call could be left
		// in the line with no one to delete it (the lookup still stops if
		// the client is closed, and the session's nodes go with it).
		if found, err := findTagged(context.WithoutCancel(ctx), conn, dir, tag); err != nil || found != "" {
			return found, err
		}
		if err := pause(ctx, conn); err != nil {
			return "", err
		}
	}
}

// findTagged returns the path of dir's child whose name carries tag, or "".
func findTagged(ctx context.Context, conn *zk.Conn, dir, tag string) (string, error) {
	kids, err := children(ctx, conn, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return "", nil // dir itself is missing: the create failed
	}
	if err != nil {
		return "", err
	}
	for _, k := range kids {
		if strings.HasPrefix(k, tag) {
			return path.Join(dir, k), nil
		}
	}
	return "", nil
}

func randomID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// ensurePath creates p and its missing parents as persistent nodes.
func ensurePath(ctx context.Context, conn *zk.Conn, p string, acl []zk.ACL) error {
	if p == "/" || p == "" {
		return nil
	}
	for {
		_, err := conn.Create(p, nil, 0, acl)
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
			return nil
		case errors.Is(err, zk.ErrNoNode):
			if err := ensurePath(ctx, conn, path.Dir(p), acl); err != nil {
				return err
			}
			continue
		case !retryable(err):
			return err
		}
		if err := pause(ctx, conn); err != nil {
			return err
		}
	}
}

// retryable reports whether err is a connection loss after which the same
// request may be sent again (go-zookeeper queues it until it reconnects;
// ErrNoServer means a round of connection attempts failed and it goes on).
func retryable(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrSessionMoved) || errors.Is(err, zk.ErrNoServer)
}

// pause waits a moment before a retry after a connection loss, so that a
// client that cannot reconnect does not spin. It returns ctx's error, or
// zk.ErrClosing when the client has been closed: go-zookeeper answers a
// closed client's requests with the same ErrConnectionClosed as a lost
// connection, but a live client leaves the "disconnected" state at once to
// reconnect, while a closed one stays in it.
func pause(ctx context.Context, conn *zk.Conn) error {
	before := conn.State()
	t := time.NewTimer(10 * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	if before == zk.StateDisconnected && conn.State() == zk.StateDisconnected {
		return zk.ErrClosing
	}
	return nil
}

// children lists dir, retrying after a connection loss.
func children(ctx context.Context, conn *zk.Conn, dir string) ([]string, error) {
	for {
		kids, _, err := conn.Children(dir)
		if !retryable(err) {
			return kids, err
		}
		if err := pause(ctx, conn); err != nil {
			return nil, err
		}
	}
}

// deleteNode deletes p (any version), retrying after a connection loss;
// a node already gone is not an error.
func deleteNode(ctx context.Context, conn *zk.Conn, p string) error {
	for {
		err := conn.Delete(p, -1)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode):
			return nil
		case !retryable(err):
			return err
		}
		if err := pause(ctx, conn); err != nil {
			return err
		}
	}
}

// giveUp deletes a node the caller is giving up (a lock, lease or
// candidacy it has released). If ctx ends or the connection fails first, a
// goroutine goes on deleting it until it is gone or the client is closed,
// so that a node nobody remembers can never block the others for the rest
// of the session.
func giveUp(ctx context.Context, conn *zk.Conn, p string) error {
	err := deleteNode(ctx, conn, p)
	if err != nil {
		go removeNode(conn, p)
	}
	return err
}

// sequence returns the counter ZooKeeper appended to a sequential name.
func sequence(name string) (int64, bool) {
	if len(name) < seqDigits {
		return 0, false
	}
	n, err := strconv.ParseInt(name[len(name)-seqDigits:], 10, 64)
	return n, err == nil
}

// sortBySequence orders sequential names by their counters, ignoring
// their (random) protected prefixes; names without a counter go last.
func sortBySequence(names []string) {
	slices.SortStableFunc(names, func(a, b string) int {
		sa, oka := sequence(a)
		sb, okb := sequence(b)
		switch {
		case oka && okb:
			return int(sa - sb)
		case oka:
			return -1
		case okb:
			return 1
		}
		return strings.Compare(a, b)
	})
}

// withPrefix keeps the names whose part after any protected tag starts
// with prefix.
func withPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(stripTag(n), prefix) {
			out = append(out, n)
		}
	}
	return out
}

// stripTag removes a protected prefix ("_c_<id>-") from a node name.
func stripTag(name string) string {
	if !strings.HasPrefix(name, protectedPrefix) {
		return name
	}
	if i := strings.IndexByte(name, '-'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// waitGone blocks until the node at p does not exist. It returns
// ErrSessionLost if the client's session expired (its id is no longer sid)
// or it was closed while waiting, ctx.Err() if ctx ends first, and nil
// after a lost connection too, so that the caller looks at the line again.
func waitGone(ctx context.Context, conn *zk.Conn, p string, sid int64) error {
	for {
		ok, _, ch, err := conn.ExistsW(p)
		if conn.SessionID() != sid {
			return ErrSessionLost // answered, if at all, in a session that is not ours
		}
		if retryable(err) {
			if err := pause(ctx, conn); err != nil {
				return err
			}
			return nil // the caller looks again: our own node may be gone
		}
		if err != nil || !ok {
			return err
		}
		select {
		case ev := <-ch:
			if err := watchLost(ev); err != nil {
				return err
			}
			if ev.Type == zk.EventNodeDeleted {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// watchLost reports ErrSessionLost for a watch ended by session expiry or
// by closing the client.
func watchLost(ev zk.Event) error {
	if ev.Type == zk.EventNotWatching {
		return ErrSessionLost
	}
	return nil
}
