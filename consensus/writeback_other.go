//go:build !linux

package consensus

import (
	"errors"
	"os"
)

// errNoWriteOut turns pacing off where there is no sync_file_range.
var errNoWriteOut = errors.New("no sync_file_range on this system")

func startWriteOut(*os.File, int64, int64) error { return errNoWriteOut }

func awaitWriteOut(*os.File, int64, int64) error { return errNoWriteOut }
