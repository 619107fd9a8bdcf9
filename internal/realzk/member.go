package realzk

import (
	"fmt"
	"os"
	"path/filepath"
)

// Kill and Restart let a caller take one member of a running ensemble
// down the hard way and bring it back, as an operator's kill -9 and
// restart would: the member keeps its directory, data, id and ports.

// Kill sends SIGKILL to member i's JVM (i indexes Addrs, from 0) and
// waits until it has exited.
func (e *Ensemble) Kill(i int) error {
	if i < 0 || i >= len(e.members) {
		return fmt.Errorf("realzk: no member %d in an ensemble of %d", i, len(e.members))
	}
	e.members[i].kill()
	return nil
}

// Restart starts member i again, from the zoo.cfg it ran with, once its
// JVM has exited (after Kill); it does not wait for the member to serve.
// opts should be those the ensemble was started with (only SystemProps
// matter here: the rest is in zoo.cfg). It must not run concurrently
// with Stop.
func (e *Ensemble) Restart(i int, opts Options) error {
	if i < 0 || i >= len(e.members) {
		return fmt.Errorf("realzk: no member %d in an ensemble of %d", i, len(e.members))
	}
	m := e.members[i]
	if m.exited() == nil {
		return fmt.Errorf("realzk: member %d is still running", m.id)
	}
	cfg, err := os.ReadFile(filepath.Join(m.dir, "zoo.cfg"))
	if err != nil {
		return err
	}
	j, err := launch(m.dir, quorumMain, cfg, opts)
	if err != nil {
		return err
	}
	m.jvm = j
	return nil
}
