package main

import (
	"io"
	"sync"
)

// console orders what a session writes: the commands' output and the
// watch events that arrive at any time. An event waits while a command
// runs and is written just before the command's next output, or once the
// command is done, so an event the server sent before a reply (a watch
// fired by the session's own write) prints before the command's output, as
// in zkCli.sh; at the prompt an event prints at once (through readline in
// a terminal, which redraws the prompt and the line being typed below it).
type console struct {
	mu      sync.Mutex
	out     io.Writer // standard output
	errw    io.Writer // standard error
	pending []string  // event texts not written yet
	busy    bool      // a command (or a connect) is running
	quiet   func() bool
	before  func() // called before events are written at the prompt
	wake    chan struct{}
	done    chan struct{}
}

// newConsole starts the console's event writer. quiet reports whether
// events are to be dropped (printwatches off); before, if not nil, runs
// before events are written at the prompt (to update the prompt).
func newConsole(out, errw io.Writer, quiet func() bool, before func()) *console {
	k := &console{out: out, errw: errw, busy: true, quiet: quiet, before: before,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go k.writer()
	return k
}

// event queues an event's text; it never blocks (it runs on
// go-zookeeper's receiving goroutine).
func (k *console) event(text string) {
	k.mu.Lock()
	k.pending = append(k.pending, text)
	k.mu.Unlock()
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// writer writes queued events while no command runs.
func (k *console) writer() {
	for {
		select {
		case <-k.done:
			return
		case <-k.wake:
		}
		k.mu.Lock()
		if !k.busy && len(k.pending) > 0 {
			if k.before != nil {
				k.before()
			}
			k.flushLocked()
		}
		k.mu.Unlock()
	}
}

// flushLocked writes (or, with printwatches off, drops) the queued events.
func (k *console) flushLocked() {
	for _, p := range k.pending {
		if !k.quiet() {
			io.WriteString(k.out, p)
		}
	}
	k.pending = nil
}

// setBusy marks a command as running (events wait) or done (queued events
// are written now, then as they come).
func (k *console) setBusy(busy bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !busy {
		k.flushLocked()
	}
	k.busy = busy
}

// drop forgets the queued events.
func (k *console) drop() {
	k.mu.Lock()
	k.pending = nil
	k.mu.Unlock()
}

// stop ends the event writer.
func (k *console) stop() { close(k.done) }

// stdout and stderr are the writers a session's commands use.
func (k *console) stdout() io.Writer { return consoleWriter{k, k.out} }
func (k *console) stderr() io.Writer { return consoleWriter{k, k.errw} }

// consoleWriter writes the queued events, then a command's output.
type consoleWriter struct {
	k *console
	w io.Writer
}

func (cw consoleWriter) Write(b []byte) (int, error) {
	cw.k.mu.Lock()
	defer cw.k.mu.Unlock()
	cw.k.flushLocked()
	return cw.w.Write(b)
}
