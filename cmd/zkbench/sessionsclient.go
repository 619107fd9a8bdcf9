package main

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Which client -op sessions opens its sessions with (-sessionclient):
// go-zookeeper (gozk, the default: what a Go user runs) or the bare
// handshake (raw, rawsession.go: what the server alone costs).
const (
	sessionClientGozk = "gozk"
	sessionClientRaw  = "raw"
)

// openedSessions are the sessions -op sessions opened, whichever client.
type openedSessions interface {
	ids() []int64
	closeAll() error
}

// openSessionsWith opens o.n sessions with -sessionclient's client.
func openSessionsWith(ctx context.Context, o *options, addrs []string) (openedSessions, error) {
	switch o.sessionClient {
	case sessionClientGozk, "":
		conns, err := openMany(ctx, o, addrs, func(int) zk.EventCallback { return nil })
		if err != nil {
			return nil, err
		}
		return gozkSessions(conns), nil
	case sessionClientRaw:
		raw, err := openRaw(ctx, o, addrs)
		if err != nil {
			return nil, err
		}
		return &rawSessions{o: o, s: raw, keep: keepRaw(raw, o.sessionTimeout)}, nil
	}
	return nil, fmt.Errorf("-sessionclient %q: want %s or %s", o.sessionClient, sessionClientGozk, sessionClientRaw)
}

type gozkSessions []*session

func (g gozkSessions) ids() []int64 {
	out := make([]int64, len(g))
	for i, s := range g {
		out[i] = s.SessionID()
	}
	return out
}

func (g gozkSessions) closeAll() error { closeAll(g); return nil }

type rawSessions struct {
	o    *options
	s    []*rawSession
	keep *rawKeeper
}

func (r *rawSessions) ids() []int64 {
	out := make([]int64, len(r.s))
	for i, s := range r.s {
		out[i] = s.id
	}
	return out
}

func (r *rawSessions) closeAll() error {
	kerr := r.keep.finish()
	if err := closeRaw(r.o, r.s); err != nil {
		return err
	}
	return kerr
}
