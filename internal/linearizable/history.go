package linearizable

import (
	"os"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// History records operations from many goroutines.
type History struct {
	mu    sync.Mutex
	start time.Time
	ops   []porcupine.Operation
}

// NewHistory starts a history; its clock starts now.
func NewHistory() *History { return &History{start: time.Now()} }

// Now is the history's clock, for an operation's call time.
func (h *History) Now() int64 { return int64(time.Since(h.start)) }

// Add records an operation that was called at call (from Now) and has
// just returned. An operation of unknown outcome returns at the end of
// time instead: it may take effect at any later time.
func (h *History) Add(client int, in Input, call int64, out Output) {
	ret := h.Now()
	if out.Code == Unknown {
		ret = 1 << 62
	}
	h.mu.Lock()
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret})
	h.mu.Unlock()
}

// Ops returns a copy of the operations recorded so far.
func (h *History) Ops() []porcupine.Operation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]porcupine.Operation(nil), h.ops...)
}

// Completed counts the operations with a known outcome so far.
func (h *History) Completed() int {
	total, unknown := h.Counts()
	return total - unknown
}

// Counts returns how many operations were recorded and how many of them
// have an unknown outcome.
func (h *History) Counts() (total, unknown int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, op := range h.ops {
		if op.Output.(Output).Code == Unknown {
			unknown++
		}
	}
	return len(h.ops), unknown
}

// Check checks ops against model (Model, or one built on it) within
// timeout. When the history is not linearizable it writes porcupine's
// visualization to a temporary file and returns the file's name ("" when
// it could not write one).
func Check(model porcupine.Model, ops []porcupine.Operation, timeout time.Duration) (res porcupine.CheckResult, visualization string) {
	res, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	if res != porcupine.Illegal {
		return res, ""
	}
	f, err := os.CreateTemp("", "zkraft-linearizability-*.html")
	if err != nil {
		return res, ""
	}
	defer f.Close()
	if err := porcupine.Visualize(model, info, f); err != nil {
		return res, ""
	}
	return res, f.Name()
}
