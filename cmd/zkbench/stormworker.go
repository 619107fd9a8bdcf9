package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// A process started with ZKBENCH_STORM_WORKER=1 is a storm worker (see
// stormwire.go): it serves the parent on stdin and stdout and exits,
// before main parses any flag.
func init() {
	if os.Getenv(stormWorkerEnv) == "1" {
		os.Exit(stormWorkerMain(context.Background(), os.Stdin, os.Stdout))
	}
}

// stormWorkerMain runs a worker and returns its exit code.
func stormWorkerMain(ctx context.Context, in io.Reader, out io.Writer) int {
	if err := runStormWorker(ctx, in, out); err != nil {
		fmt.Fprintln(os.Stderr, "zkbench storm worker:", err)
		return 1
	}
	return 0
}

// wireQueue sends lines to the parent in order from one goroutine, so
// that go-zookeeper's event callbacks, which must not block, only append.
type wireQueue struct {
	mu      sync.Mutex
	pending [][]byte
	closed  bool
	wake    chan struct{}
	done    chan struct{}
}

func newWireQueue(out io.Writer) *wireQueue {
	q := &wireQueue{wake: make(chan struct{}, 1), done: make(chan struct{})}
	go q.run(bufio.NewWriterSize(out, 64<<10))
	return q
}

func (q *wireQueue) send(w stormWire) {
	b := mustJSON(w)
	q.mu.Lock()
	if !q.closed {
		q.pending = append(q.pending, b)
	}
	q.mu.Unlock()
	q.poke()
}

func (q *wireQueue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// run writes what is pending at every wake-up; a write error (the
// parent is gone) drops the rest.
func (q *wireQueue) run(bw *bufio.Writer) {
	defer close(q.done)
	var failed bool
	for range q.wake {
		q.mu.Lock()
		lines, closed := q.pending, q.closed
		q.pending = nil
		q.mu.Unlock()
		for _, l := range lines {
			if !failed {
				_, err := bw.Write(l)
				failed = err != nil
			}
		}
		if !failed {
			failed = bw.Flush() != nil
		}
		if closed {
			return
		}
	}
}

// close writes what was sent and stops the queue.
func (q *wireQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.poke()
	<-q.done
}

// runStormWorker reads the config, opens the sessions, and answers the
// commands until close (or the end of its input).
func runStormWorker(ctx context.Context, in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(bufio.NewReader(in))
	var cfg stormWorkerConfig
	if err := dec.Decode(&cfg); err != nil {
		return fmt.Errorf("reading the config: %w", err)
	}
	if cfg.TLS.CA != "" {
		d, err := tlsFlags{ca: cfg.TLS.CA, cert: cfg.TLS.Cert, key: cfg.TLS.Key}.dialer()
		if err != nil {
			return err
		}
		sessionDialer = d
	}
	if err := ensureOpenFiles(cfg.Count+1, false); err != nil {
		return err
	}
	q := newWireQueue(out)
	defer q.close()
	conns := make([]*zk.Conn, cfg.Count)
	defer func() {
		closeConns(conns)
		q.send(stormWire{T: wireClosed})
	}()
	timeout := time.Duration(cfg.TimeoutNs)
	err := parallel(cfg.Count, max(cfg.Parallel, 1), func(k int) error {
		i := cfg.First + k
		c, err := openStormConn(ctx, timeout, cfg.Addrs, i, func(ev zk.Event) { q.send(eventWire(i, ev, time.Now())) })
		conns[k] = c
		return err
	})
	opened := stormWire{T: wireOpened}
	if err != nil {
		opened.Err = err.Error()
	}
	q.send(opened)
	for {
		var cmd stormCommand
		if err := dec.Decode(&cmd); err != nil {
			return nil // the parent closed our input (or died): close up
		}
		switch cmd.Cmd {
		case "report":
			for k, c := range conns {
				if c != nil {
					q.send(stormWire{T: wireSession, I: cfg.First + k, Sid: c.SessionID(), Server: c.Server()})
				}
			}
			q.send(stormWire{T: wireReported})
		case "close":
			return nil
		default:
			return fmt.Errorf("unknown command %q", cmd.Cmd)
		}
	}
}

// closeConns closes the sessions, many at once.
func closeConns(conns []*zk.Conn) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 256)
	for _, c := range conns {
		if c == nil {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			c.Close()
			<-sem
		})
	}
	wg.Wait()
}
