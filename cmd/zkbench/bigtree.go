package main

import (
	"context"
	"errors"
	"flag"
	"io"
)

// bigtreeFlags are -op bigtree's flags.
type bigtreeFlags struct{}

func (b *bigtreeFlags) register(fs *flag.FlagSet) {}

// runBigtree is being written (issue 30).
func runBigtree(ctx context.Context, o *options, out io.Writer) error {
	return errors.New("-op bigtree is not written yet")
}
