package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// stormPerWorker is the most sessions one worker process holds: well
// under a 20,000 open-files limit, and 20,000 sessions make four
// workers, which the two cores here can feed.
const stormPerWorker = 5000

// stormSession is one session of the storm, as the parent sees it: its
// tally is fed by the events its worker forwards.
type stormSession struct {
	tally  *stormTally
	id     int64  // the session id before the failure
	on     string // the server before the failure
	sid    int64  // the session id at the last report
	server string // the server at the last report
}

// stormPool is the storm's sessions, spread over worker processes.
type stormPool struct {
	sessions []*stormSession
	workers  []*stormWorkerLink
}

// stormWorkerLink is the parent's end of one worker.
type stormWorkerLink struct {
	in      io.WriteCloser
	replies chan stormWire // opened, reported and closed lines
	readErr error          // set before replies is closed
	wait    func() error   // waits for the worker to end
}

// startStormWorker starts a worker and returns its input, its output and
// a wait; a variable so that a test can run the worker in-process.
var startStormWorker = func() (io.WriteCloser, io.ReadCloser, func() error, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), stormWorkerEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	return in, out, cmd.Wait, nil
}

// stormWorkers is how many workers n sessions need: at least two, so
// that the split is always exercised, and none without a session.
func stormWorkers(n int) int {
	return min(n, max(2, (n+stormPerWorker-1)/stormPerWorker))
}

// openStormPool starts the workers and waits until every one has opened
// its share of the n sessions.
func openStormPool(ctx context.Context, o *options, addrs []string) (*stormPool, error) {
	p := &stormPool{sessions: make([]*stormSession, o.n)}
	for i := range p.sessions {
		p.sessions[i] = &stormSession{tally: newStormTally(stormPath("w", i))}
	}
	nw := stormWorkers(o.n)
	for k := range nw {
		first, end := k*o.n/nw, (k+1)*o.n/nw
		cfg := stormWorkerConfig{Addrs: addrs, TimeoutNs: int64(o.sessionTimeout), First: first, Count: end - first,
			Parallel: max(1, (o.inflight+nw-1)/nw)}
		cfg.TLS.CA, cfg.TLS.Cert, cfg.TLS.Key = o.tls.ca, o.tls.cert, o.tls.key
		w, err := p.start(cfg)
		if err != nil {
			p.close()
			return nil, fmt.Errorf("storm worker %d: %w", k, err)
		}
		p.workers = append(p.workers, w)
	}
	for k, w := range p.workers {
		m, err := w.await(ctx, wireOpened)
		if err == nil && m.Err != "" {
			err = errors.New(m.Err)
		}
		if err != nil {
			p.close()
			return nil, fmt.Errorf("storm worker %d: %w", k, err)
		}
	}
	return p, nil
}

// start starts one worker on cfg and reads its lines.
func (p *stormPool) start(cfg stormWorkerConfig) (*stormWorkerLink, error) {
	in, out, wait, err := startStormWorker()
	if err != nil {
		return nil, err
	}
	w := &stormWorkerLink{in: in, replies: make(chan stormWire, 4), wait: wait}
	go func() {
		w.readErr = p.read(out, cfg.First, cfg.First+cfg.Count, w.replies)
		close(w.replies)
	}()
	if _, err := in.Write(mustJSON(cfg)); err != nil {
		return w, err
	}
	return w, nil
}

// read dispatches a worker's lines until its output ends: events to the
// tallies, reports to the sessions, the rest to replies. Sessions are
// only those of [first, end).
func (p *stormPool) read(r io.Reader, first, end int, replies chan<- stormWire) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var m stormWire
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return fmt.Errorf("a worker's line %q: %w", sc.Text(), err)
		}
		if (m.T == wireEvent || m.T == wireSession) && (m.I < first || m.I >= end) {
			return fmt.Errorf("a worker of sessions %d-%d sent session %d", first, end-1, m.I)
		}
		switch m.T {
		case wireEvent:
			ev, at := m.event()
			p.sessions[m.I].tally.eventAt(ev, at)
		case wireSession:
			s := p.sessions[m.I]
			s.sid, s.server = m.Sid, m.Server
		default:
			replies <- m
		}
	}
	return sc.Err()
}

// await waits for the worker's next reply, which must be of kind t.
func (w *stormWorkerLink) await(ctx context.Context, t string) (stormWire, error) {
	select {
	case <-ctx.Done():
		return stormWire{}, ctx.Err()
	case m, ok := <-w.replies:
		if !ok {
			if w.readErr != nil {
				return m, w.readErr
			}
			return m, fmt.Errorf("the worker ended before %q", t)
		}
		if m.T != t {
			return m, fmt.Errorf("the worker replied %q, not %q", m.T, t)
		}
		return m, nil
	}
}

// report asks every worker for its sessions' ids and servers (into sid
// and server) and waits for all of them.
func (p *stormPool) report(ctx context.Context) error {
	for _, w := range p.workers {
		if _, err := w.in.Write(mustJSON(stormCommand{Cmd: "report"})); err != nil {
			return err
		}
	}
	for k, w := range p.workers {
		if _, err := w.await(ctx, wireReported); err != nil {
			return fmt.Errorf("storm worker %d: %w", k, err)
		}
	}
	return nil
}

// close closes every worker's sessions and waits for the workers to end
// (their output ends once their sessions are closed); a worker still
// going after stormCloseWait is left to finish on its own.
func (p *stormPool) close() {
	var wg sync.WaitGroup
	for _, w := range p.workers {
		wg.Go(func() {
			w.in.Write(mustJSON(stormCommand{Cmd: "close"}))
			w.in.Close()
			timeout := time.After(stormCloseWait)
			for {
				select {
				case _, ok := <-w.replies:
					if ok {
						continue
					}
					w.wait()
				case <-timeout:
				}
				return
			}
		})
	}
	wg.Wait()
}

const stormCloseWait = 2 * time.Minute
