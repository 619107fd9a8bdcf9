package lab

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/zkraft/zkraft/admin"
	"github.com/zkraft/zkraft/console"
	"github.com/zkraft/zkraft/datatree"
	"github.com/zkraft/zkraft/internal/faultnet"
	"github.com/zkraft/zkraft/internal/testports"
	"github.com/zkraft/zkraft/server"
)

// Errors of the lab's actions.
var (
	ErrSize      = errors.New("lab: an ensemble of 1 to 9 servers")
	ErrNoServer  = fmt.Errorf("%w: no such server", console.ErrBadRequest)
	ErrRunning   = errors.New("lab: the server is running (kill it first)")
	ErrStopped   = errors.New("lab: the server is not running")
	ErrLoadOn    = errors.New("lab: a write load is running (stop it first)")
	ErrNoClients = fmt.Errorf("%w: clients must be 1 to 64", console.ErrBadRequest)
	ErrBadLink   = fmt.Errorf("%w: delay must be 0 or more and loss 0 or more, below 1", console.ErrBadRequest)
)

// Options configure Start.
type Options struct {
	// N is the number of servers (default 3).
	N int
	// Dir holds the servers' data; "" makes a temporary directory that
	// Close removes.
	Dir string
	// Tick is the servers' tickTime (default 500 ms, what the test
	// harness uses; elections take a few ticks).
	Tick time.Duration
	// Interval is how often the consoles refresh their figures (default
	// console.DefaultInterval).
	Interval time.Duration
	// Logger receives the servers' and consoles' lines (default: discarded).
	Logger *slog.Logger
}

// SuperCredentials is the digest user and password of the lab's super
// user ("Authorization: digest lab:lab" over HTTP, addauth digest lab:lab
// on the client port): the lab is a teaching tool on loopback, not a
// server to protect.
const SuperCredentials = "lab:lab"

// Lab is a running lab ensemble.
type Lab struct {
	opts     Options
	tmp      bool
	net      *faultnet.Network
	mu       sync.Mutex // guards the slices below and isolated
	cfgs     []server.Config
	servers  []*server.Server // nil while killed
	admins   []*admin.Server
	adminAt  []string        // each AdminServer's address, kept across restarts
	closing  []chan struct{} // closed once a killed server's AdminServer is closed
	isolated map[int]bool
	load     *load
	// lastWrite is the last Write's outcome (scenario.go).
	lastWrite *console.LabWrite
}

var _ console.Lab = (*Lab)(nil)

// Start starts the ensemble, each server with its console, and returns
// once every server has started (a leader may still be being elected).
func Start(ctx context.Context, opts Options) (*Lab, error) {
	if opts.N == 0 {
		opts.N = 3
	}
	if opts.N < 1 || opts.N > 9 {
		return nil, ErrSize
	}
	if opts.Tick <= 0 {
		opts.Tick = 500 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	l := &Lab{opts: opts, net: faultnet.New(), isolated: map[int]bool{}}
	if opts.Dir == "" {
		dir, err := os.MkdirTemp("", "zklab-")
		if err != nil {
			return nil, err
		}
		l.opts.Dir, l.tmp = dir, true
	}
	if err := l.configure(); err != nil {
		l.Close()
		return nil, err
	}
	for i := range l.cfgs {
		if err := l.start(ctx, i); err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// configure picks every port up front, so that a restarted server comes
// back at the same addresses (peers, clients, console).
func (l *Lab) configure() error {
	n := l.opts.N
	pick := func() (int, error) { return testports.Pick() }
	lines := make(map[int64]string, n)
	clientPorts := make([]int, n)
	l.adminAt = make([]string, n)
	for i := range n {
		var p [4]int
		for j := range p {
			port, err := pick()
			if err != nil {
				return err
			}
			p[j] = port
		}
		lines[int64(i+1)] = fmt.Sprintf("127.0.0.1:%d:%d", p[0], p[1])
		clientPorts[i] = p[2]
		l.adminAt[i] = net.JoinHostPort("127.0.0.1", strconv.Itoa(p[3]))
	}
	for i := range n {
		cfg := server.DefaultConfig()
		cfg.ClientPortAddress = "127.0.0.1"
		cfg.ClientPort = clientPorts[i]
		cfg.ServerID = int64(i + 1)
		cfg.Servers = lines
		cfg.TickTime = l.opts.Tick
		cfg.DataDir = filepath.Join(l.opts.Dir, strconv.Itoa(i+1))
		cfg.ForceSync = false
		// The lab's controls and the console's writes need verified
		// credentials: "digest lab:lab" is the lab's super user.
		cfg.SuperDigest = datatree.DigestID(SuperCredentials)
		// The guided scenarios remove a server and add it back
		// (reconfig, as the super user).
		cfg.ReconfigEnabled = true
		l.cfgs = append(l.cfgs, cfg)
	}
	l.servers = make([]*server.Server, n)
	l.admins = make([]*admin.Server, n)
	l.closing = make([]chan struct{}, n)
	return nil
}

// start starts server i and its AdminServer with the console and the lab.
func (l *Lab) start(ctx context.Context, i int) error {
	if ch := l.closing[i]; ch != nil {
		<-ch // the old AdminServer lets go of the port first
	}
	s, err := server.New(l.cfgs[i], server.WithNetwork(l.net.For(i)), server.WithLogger(l.opts.Logger))
	if err != nil {
		return fmt.Errorf("lab: server %d: %w", i+1, err)
	}
	if err := s.Start(ctx); err != nil {
		return fmt.Errorf("lab: start server %d: %w", i+1, err)
	}
	con := console.New(s, console.Options{Interval: l.opts.Interval, Logger: l.opts.Logger, Lab: l})
	a, err := admin.Start(s, admin.Options{Addr: l.adminAt[i], Console: con, Logger: l.opts.Logger})
	if err != nil {
		s.Close()
		return fmt.Errorf("lab: console of server %d: %w", i+1, err)
	}
	l.servers[i], l.admins[i] = s, a
	return nil
}

// ConsoleURLs returns each server's console address, by server index.
func (l *Lab) ConsoleURLs() []string {
	out := make([]string, len(l.adminAt))
	for i, a := range l.adminAt {
		out[i] = "http://" + a + "/"
	}
	return out
}

// ClientAddrs returns each server's client address, by server index.
func (l *Lab) ClientAddrs() []string {
	out := make([]string, len(l.cfgs))
	for i, c := range l.cfgs {
		out[i] = net.JoinHostPort(c.ClientPortAddress, strconv.Itoa(c.ClientPort))
	}
	return out
}

// Server returns server id, or nil while it is killed (for tests).
func (l *Lab) Server(id int64) *server.Server {
	l.mu.Lock()
	defer l.mu.Unlock()
	if id < 1 || int(id) > len(l.servers) {
		return nil
	}
	return l.servers[id-1]
}

// Close stops the load, every server and console, and removes the
// temporary directory Start made.
func (l *Lab) Close() {
	l.StopLoad()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.servers {
		l.stopLocked(i)
	}
	if l.tmp {
		os.RemoveAll(l.opts.Dir)
	}
}

// stopLocked closes server i and its AdminServer, if running.
func (l *Lab) stopLocked(i int) {
	if a := l.admins[i]; a != nil {
		a.Close()
		l.admins[i] = nil
	}
	if s := l.servers[i]; s != nil {
		s.Close()
		l.servers[i] = nil
	}
}
