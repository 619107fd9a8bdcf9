package recipes

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
)

// ConfigUpdate is the state of a watched node.
type ConfigUpdate struct {
	// Data is the node's data; nil when it does not exist.
	Data []byte
	// Stat is the node's stat; nil when it does not exist.
	Stat *zk.Stat
	// Exists reports whether the node exists.
	Exists bool
}

// WatchConfig follows the node at path, like Curator's NodeCache or
// kazoo's DataWatch. The channel receives the node's current state first
// (Exists false if there is no such node), then its new state after every
// change: data set, node deleted, node created again.
//
// The channel always ends up holding the latest state: the watcher keeps
// reading while the receiver is slow, and hands over only the newest
// state it has, so changes that follow each other quickly may be merged
// into one update, but the last one is never lost. Each state is sent
// once: an update differs from the previous one in existence, creation
// (Czxid) or modification (Mzxid).
//
// It re-arms its one-shot watches after each event, keeps them across
// connection losses (go-zookeeper sets them again on reconnect) and sets
// them again on the new session after a session expiry, reading the node
// again so that changes made meanwhile are not missed.
//
// The channel is closed when ctx ends, when the client is closed (its
// watch ends with zk.ErrClosing), or on an error other than a connection
// loss or session expiry (e.g. zk.ErrNoAuth). A client closed in the very
// middle of a read looks like a connection loss to go-zookeeper; the
// watcher then retries, ever more slowly, until ctx ends.
func WatchConfig(ctx context.Context, conn *zk.Conn, path string) <-chan ConfigUpdate {
	out := make(chan ConfigUpdate)
	go configWatch(ctx, conn, path, out)
	return out
}

// The watcher waits configRetryMin before reading again after a
// connection loss, doubling up to configRetryMax while reads keep failing.
// (go-zookeeper queues a read while it reconnects, so reads fail at once
// only on a closed client, which the watcher cannot tell apart.)
const (
	configRetryMin = 10 * time.Millisecond
	configRetryMax = time.Second
)

func configWatch(ctx context.Context, conn *zk.Conn, path string, out chan<- ConfigUpdate) {
	defer close(out)
	var (
		last    ConfigUpdate // the latest state read
		read    bool         // whether last has been read yet
		pending bool         // last is not yet delivered
		watch   <-chan zk.Event
		retry   *time.Timer
		again   <-chan time.Time // fires to read again after an error
		backoff = configRetryMin
	)
	defer func() {
		if retry != nil {
			retry.Stop()
		}
	}()
	for {
		if watch == nil && again == nil {
			u, ch, err := configRead(conn, path)
			switch {
			case err == nil:
				watch, backoff = ch, configRetryMin
				if !read || configChanged(last, u) {
					last, read, pending = u, true, true
				}
			case transientErr(err):
				if retry == nil {
					retry = time.NewTimer(backoff)
				} else {
					retry.Reset(backoff)
				}
				again, backoff = retry.C, min(2*backoff, configRetryMax)
			default:
				return // closed, or an error that retrying will not cure
			}
		}
		var send chan<- ConfigUpdate
		if pending {
			send = out
		}
		select {
		case send <- last:
			pending = false
		case ev := <-watch:
			watch = nil // a one-shot watch: read and set it again
			if ev.Type == zk.EventNotWatching && errors.Is(ev.Err, zk.ErrClosing) {
				return
			}
		case <-again:
			again = nil
		case <-ctx.Done():
			return
		}
	}
}

// configRead reads the node and sets a watch on it: a data watch if it
// exists, else an exists watch, which fires when it is created.
func configRead(conn *zk.Conn, path string) (ConfigUpdate, <-chan zk.Event, error) {
	for {
		data, stat, ch, err := conn.GetW(path)
		if err == nil {
			return ConfigUpdate{Data: data, Stat: stat, Exists: true}, ch, nil
		}
		if !errors.Is(err, zk.ErrNoNode) {
			return ConfigUpdate{}, nil, err
		}
		ok, _, ch, err := conn.ExistsW(path)
		if err != nil {
			return ConfigUpdate{}, nil, err
		}
		if !ok {
			return ConfigUpdate{}, ch, nil
		}
		// Created in between: read it (the exists watch set on it stays
		// registered until its next change, which is harmless).
	}
}

func configChanged(a, b ConfigUpdate) bool {
	if a.Exists != b.Exists {
		return true
	}
	if !a.Exists {
		return false
	}
	return a.Stat.Czxid != b.Stat.Czxid || a.Stat.Mzxid != b.Stat.Mzxid
}
