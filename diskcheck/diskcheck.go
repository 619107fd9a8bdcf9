package diskcheck

import (
	"errors"
	"fmt"
	"io"

	"github.com/zkraft/zkraft/consensus"
)

// ErrDamaged is returned by Run when any file is damaged.
var ErrDamaged = consensus.ErrDamaged

// Run checks the data directory dataDir (and the log in logDir, empty
// meaning dataDir), writes a line per file to w and a last line with the
// verdict, and returns an error wrapping ErrDamaged if anything is
// damaged, or another error if the check could not run (the directory is
// in use by a running server, or holds no zkraft data).
func Run(w io.Writer, dataDir, logDir string) error {
	reports, err := consensus.Verify(dataDir, logDir)
	if err != nil && !errors.Is(err, consensus.ErrDamaged) {
		return err
	}
	damaged := 0
	for _, r := range reports {
		switch {
		case r.Damage != nil:
			damaged++
			fmt.Fprintf(w, "DAMAGED %s: %v\n", r.Path, problem(r.Damage))
		case r.Note != "":
			fmt.Fprintf(w, "note    %s: %s; %s\n", r.Path, r.Summary, r.Note)
		default:
			fmt.Fprintf(w, "ok      %s: %s\n", r.Path, r.Summary)
		}
	}
	if damaged == 0 {
		fmt.Fprintf(w, "%d files checked, no damage\n", len(reports))
		return nil
	}
	fmt.Fprintf(w, "%d of %d files damaged: restore this directory from a backup, or in an ensemble move it aside so the server rejoins empty and copies the leader's state\n", damaged, len(reports))
	return fmt.Errorf("%w: %d of %d files", ErrDamaged, damaged, len(reports))
}

// problem drops the file name from a damage error, which the line shows.
func problem(err error) string {
	var d *consensus.DamageError
	if !errors.As(err, &d) {
		return err.Error()
	}
	s := ""
	if d.Offset >= 0 {
		s = fmt.Sprintf("at offset %d: ", d.Offset)
	}
	if d.Index > 0 {
		s += fmt.Sprintf("log entry %d: ", d.Index)
	}
	return s + d.Problem
}
