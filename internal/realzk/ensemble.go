package realzk

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EnsembleStartTimeout bounds how long StartEnsemble waits for every
// member to serve and for one of them to lead.
const EnsembleStartTimeout = 60 * time.Second

// Ensemble is a running ZooKeeper ensemble: one QuorumPeerMain JVM per
// member, all on 127.0.0.1.
type Ensemble struct {
	dir       string
	ownDir    bool
	voters    int // members 1 ... voters vote; the others observe
	observers int
	members   []*member

	stopOnce sync.Once
	stopErr  error
}

// member is one server of an ensemble.
type member struct {
	id        int
	dir       string
	addr      string
	adminAddr string
	*jvm
}

// StartEnsemble launches an n-server ZooKeeper ensemble (n >= 2) whose
// members live in dir/1 ... dir/n, each with its zoo.cfg, data/myid and
// out.log (dir is created if missing; if dir is "", a temporary directory
// is created and removed by Stop). Each member listens for clients, peers
// and elections on free loopback ports. opts apply to every member as to
// Start's server; the defaults add tickTime=2000, initLimit=10, syncLimit=5
// and the server.N lines. StartEnsemble returns once every member answers
// ruok and grants a session and srvr shows one leader and n-1 followers.
func StartEnsemble(dir string, n int, opts Options) (*Ensemble, error) {
	return StartEnsembleObservers(dir, n, 0, opts)
}

// StartEnsembleObservers launches an ensemble of voters participants
// (voters >= 2) and observers observers, as StartEnsemble does: members
// 1 ... voters vote, members voters+1 ... voters+observers observe (their
// server.N lines end in :observer, and their own zoo.cfg says
// peerType=observer). It returns once srvr shows one leader, the other
// voters following and the observers observing.
func StartEnsembleObservers(dir string, voters, observers int, opts Options) (*Ensemble, error) {
	if ok, reason := Available(); !ok {
		return nil, errors.New(reason)
	}
	if voters < 2 || observers < 0 {
		return nil, fmt.Errorf("realzk: an ensemble needs at least 2 voting servers and no negative number of observers, not %d and %d (Start runs one server)", voters, observers)
	}
	n := voters + observers
	ownDir := false
	if dir == "" {
		d, err := os.MkdirTemp("", "realzk-ensemble-")
		if err != nil {
			return nil, err
		}
		dir, ownDir = d, true
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// As in Start: a member that dies (most likely because another process
	// took one of its ports) makes the whole ensemble start again on fresh
	// ports and in fresh member directories.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		e := &Ensemble{dir: dir, ownDir: ownDir, voters: voters, observers: observers}
		err := e.start(n, opts)
		if err == nil {
			return e, nil
		}
		e.killAll()
		lastErr = err
		if !errors.Is(err, errExited) {
			break
		}
	}
	if ownDir {
		os.RemoveAll(dir)
	}
	return nil, lastErr
}

// ensembleConfig returns a member's zoo.cfg; an observer's says so with
// peerType=observer (its server.N line in servers ends in :observer).
func ensembleConfig(dataDir string, clientPort int, servers map[string]string, observer bool, opts Options) []byte {
	cfg := baseConfig(dataDir, clientPort, opts)
	cfg["initLimit"] = "10"
	cfg["syncLimit"] = "5"
	if observer {
		cfg["peerType"] = "observer"
	}
	for k, v := range servers {
		cfg[k] = v
	}
	merge(cfg, opts.ExtraConfig)
	return formatConfig(cfg)
}

// start writes the members' directories, launches their JVMs (each one
// appended to e.members at once, so killAll finds it) and waits for a
// leader.
func (e *Ensemble) start(n int, opts Options) error {
	ports, err := freePorts(3 * n) // client, peer and election port per member
	if err != nil {
		return err
	}
	servers := serverLines(n, e.observers, ports)
	for id := 1; id <= n; id++ {
		mdir := filepath.Join(e.dir, strconv.Itoa(id))
		data := filepath.Join(mdir, "data")
		if err := os.RemoveAll(mdir); err != nil {
			return err
		}
		if err := os.MkdirAll(data, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(id)+"\n"), 0o644); err != nil {
			return err
		}
		port := ports[3*id-3]
		mopts, adminAddr, err := withAdmin(opts)
		if err != nil {
			return err
		}
		j, err := launch(mdir, quorumMain, ensembleConfig(data, port, servers, e.observer(id), mopts), mopts)
		if err != nil {
			return err
		}
		e.members = append(e.members, &member{id: id, dir: mdir,
			addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), adminAddr: adminAddr, jvm: j})
	}
	deadline := time.Now().Add(EnsembleStartTimeout)
	err = poll(deadline, e.anyExited, e.ready)
	if err != nil && !errors.Is(err, errExited) {
		err = fmt.Errorf("realzk: ensemble in %s not ready within %v: %w", e.dir, EnsembleStartTimeout, err)
	}
	if err != nil {
		for _, m := range e.members {
			err = fmt.Errorf("%w\n%s", err, m.logTail())
		}
	}
	return err
}

// serverLines returns the server.N lines of n members whose client, peer
// and election ports are ports[3(N-1)], ports[3(N-1)+1] and ports[3(N-1)+2];
// the last observers members are observers.
func serverLines(n, observers int, ports []int) map[string]string {
	servers := make(map[string]string, n)
	for id := 1; id <= n; id++ {
		line := fmt.Sprintf("127.0.0.1:%d:%d", ports[3*id-2], ports[3*id-1])
		if id > n-observers {
			line += ":observer"
		}
		servers["server."+strconv.Itoa(id)] = line
	}
	return servers
}

// observer reports whether member id is an observer.
func (e *Ensemble) observer(id int) bool { return id > e.voters }

// anyExited returns an error naming the first member whose JVM has exited.
func (e *Ensemble) anyExited() error {
	for _, m := range e.members {
		if err := m.exited(); err != nil {
			return fmt.Errorf("member %d: %w", m.id, err)
		}
	}
	return nil
}

// ready checks that every member serves and that exactly one leads while
// the others follow.
func (e *Ensemble) ready() error {
	leaders := 0
	var modes []string
	for _, m := range e.members {
		if err := serving(m.addr); err != nil {
			return fmt.Errorf("member %d on %s: %w", m.id, m.addr, err)
		}
		mode, err := Mode(m.addr, time.Second)
		if err != nil {
			return fmt.Errorf("member %d: %w", m.id, err)
		}
		want := "follower"
		if e.observer(m.id) {
			want = "observer"
		}
		switch {
		case mode == "leader" && !e.observer(m.id):
			leaders++
		case mode == want:
		default:
			return fmt.Errorf("member %d on %s is %s", m.id, m.addr, mode)
		}
		modes = append(modes, mode)
	}
	if leaders != 1 {
		return fmt.Errorf("modes %s: want one leader", strings.Join(modes, ", "))
	}
	return nil
}

// Addrs returns the members' client addresses, 127.0.0.1:port, in the
// order of their ids (1 ... n).
func (e *Ensemble) Addrs() []string {
	addrs := make([]string, len(e.members))
	for i, m := range e.members {
		addrs[i] = m.addr
	}
	return addrs
}

// Pids returns the members' JVM process ids, in the order of Addrs.
func (e *Ensemble) Pids() []int {
	pids := make([]int, len(e.members))
	for i, m := range e.members {
		pids[i] = m.cmd.Process.Pid
	}
	return pids
}

// Dir returns the ensemble's directory, which holds one directory per
// member, named by its id.
func (e *Ensemble) Dir() string { return e.dir }

// Stop kills every member's process group, waits for the JVMs to exit and
// removes the directory if StartEnsemble created it. It is safe to call
// more than once.
func (e *Ensemble) Stop() error {
	e.stopOnce.Do(func() {
		e.killAll()
		if e.ownDir {
			e.stopErr = os.RemoveAll(e.dir)
		}
	})
	return e.stopErr
}

// killAll kills the members' JVMs at once rather than one after another.
func (e *Ensemble) killAll() {
	var wg sync.WaitGroup
	for _, m := range e.members {
		wg.Go(m.kill)
	}
	wg.Wait()
}
