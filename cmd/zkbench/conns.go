package main

import (
	"context"
	"errors"
	"flag"
	"io"
)

// connsFlags are -op conns's flags.
type connsFlags struct{}

func (b *connsFlags) register(fs *flag.FlagSet) {}

// runConns is being written (issue 30).
func runConns(ctx context.Context, o *options, out io.Writer) error {
	return errors.New("-op conns is not written yet")
}
