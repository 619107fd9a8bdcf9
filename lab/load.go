package lab

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/console"
)

// LoadRoot is the znode under which the write load writes, one child per
// client.
const LoadRoot = "/lab-load"

// loadPace is the time between two writes of one client: 50 writes a
// second each, enough to watch indexes move and lag build up behind a slow
// link without taking the machine's cores from the servers.
const loadPace = 20 * time.Millisecond

// load is a running write load.
type load struct {
	clients        int
	writes, errors atomic.Uint64
	stop           chan struct{}
	wg             sync.WaitGroup
}

func (ld *load) status() console.LabLoad {
	return console.LabLoad{Clients: ld.clients, Writes: ld.writes.Load(), Errors: ld.errors.Load()}
}

// StartLoad starts clients go-zookeeper clients, each given every
// server's address, each setting the data of its own node under LoadRoot
// once per loadPace. Failed writes are counted and retried at the next
// beat (a client rides out kills and elections by reconnecting).
func (l *Lab) StartLoad(clients int) error {
	if clients < 1 || clients > 64 {
		return ErrNoClients
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.load != nil {
		return ErrLoadOn
	}
	ld := &load{clients: clients, stop: make(chan struct{})}
	addrs := l.ClientAddrs()
	for c := range clients {
		ld.wg.Go(func() { ld.run(addrs, c) })
	}
	l.load = ld
	l.opts.Logger.Info("lab: write load started", "clients", clients)
	return nil
}

// StopLoad stops the write load, if one runs, and waits for its clients
// to close.
func (l *Lab) StopLoad() {
	l.mu.Lock()
	ld := l.load
	l.load = nil
	l.mu.Unlock()
	if ld == nil {
		return
	}
	close(ld.stop)
	ld.wg.Wait()
	l.opts.Logger.Info("lab: write load stopped", "writes", ld.writes.Load(), "errors", ld.errors.Load())
}

// run is one client of the load.
func (ld *load) run(addrs []string, c int) {
	conn, _, err := zk.Connect(addrs, 4*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		ld.errors.Add(1)
		return
	}
	defer conn.Close()
	path := fmt.Sprintf("%s/c%d", LoadRoot, c)
	ready := false
	tick := time.NewTicker(loadPace)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-ld.stop:
			return
		case <-tick.C:
		}
		if !ready {
			ready = ensure(conn, path)
			if !ready {
				ld.errors.Add(1)
				continue
			}
		}
		if _, err := conn.Set(path, []byte(strconv.Itoa(n)), -1); err != nil {
			ld.errors.Add(1)
			continue
		}
		ld.writes.Add(1)
	}
}

// ensure creates LoadRoot and path if they are missing.
func ensure(conn *zk.Conn, path string) bool {
	for _, p := range []string{LoadRoot, path} {
		if _, err := conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && err != zk.ErrNodeExists {
			return false
		}
	}
	return true
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}
