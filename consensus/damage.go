package consensus

import (
	"errors"
	"fmt"
)

// ErrDamaged is wrapped by every error about a log or snapshot file whose
// contents fail their checks (checksums, framing, missing or cut files).
var ErrDamaged = errors.New("damaged data")

// DamageError says which file is damaged, where, and how.
type DamageError struct {
	File    string // path of the damaged file
	Offset  int64  // byte offset in File where the damage starts; -1 if unknown
	Index   uint64 // the log entry concerned; 0 if none
	Problem string
}

func (e *DamageError) Error() string {
	s := "damaged data in " + e.File
	if e.Offset >= 0 {
		s += fmt.Sprintf(" at offset %d", e.Offset)
	}
	if e.Index > 0 {
		s += fmt.Sprintf(" (log entry %d)", e.Index)
	}
	return s + ": " + e.Problem
}

func (e *DamageError) Unwrap() error { return ErrDamaged }

func damaged(file string, offset int64, index uint64, format string, args ...any) *DamageError {
	return &DamageError{File: file, Offset: offset, Index: index, Problem: fmt.Sprintf(format, args...)}
}

// refuseDamaged turns a damage error found while opening the stores into
// the one line a server stops with: what is wrong, where, and what to do.
func refuseDamaged(err error, dataDir string) error {
	return explainDamaged(err, dataDir, "the server will not start on it")
}

// stopDamaged is refuseDamaged for damage found while running.
func stopDamaged(err error, dataDir string) error {
	return explainDamaged(err, dataDir, "the server stops")
}

func explainDamaged(err error, dataDir, verdict string) error {
	var d *DamageError
	if !errors.As(err, &d) {
		return err
	}
	return fmt.Errorf("consensus: %w; %s. Run `zkserver verify %s` for a full report, "+
		"then restore the directory from a backup, or in an ensemble move it aside so this server rejoins empty and copies the leader's state",
		d, verdict, dataDir)
}
