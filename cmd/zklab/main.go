package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/zkraft/zkraft/lab"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its arguments and outputs, for tests.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("zklab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 3, "number of servers (3 or 5 make sense)")
	dir := fs.String("dir", "", "data directory (default: a temporary one, removed on exit)")
	tick := fs.Duration("tick", 500*time.Millisecond, "the servers' tickTime")
	verbose := fs.Bool("v", false, "log the servers' lines to stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logger := slog.New(slog.DiscardHandler)
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, err := lab.Start(ctx, lab.Options{N: *n, Dir: *dir, Tick: *tick, Logger: logger})
	if err != nil {
		fmt.Fprintln(stderr, "zklab:", err)
		return 1
	}
	defer l.Close()
	fmt.Fprint(stdout, banner(l))
	<-ctx.Done()
	fmt.Fprintln(stdout, "zklab: stopping")
	return 0
}

// banner tells the user where everything is.
func banner(l *lab.Lab) string {
	var b strings.Builder
	urls, addrs := l.ConsoleURLs(), l.ClientAddrs()
	fmt.Fprintf(&b, "zklab: %d servers on 127.0.0.1\n", len(urls))
	for i := range urls {
		fmt.Fprintf(&b, "  server %d  console %s  clients %s\n", i+1, urls[i], addrs[i])
	}
	fmt.Fprintf(&b, "connect string: %s\n", strings.Join(addrs, ","))
	fmt.Fprintln(&b, "The lab's buttons are in each console's Lab section; they ask for the")
	fmt.Fprintln(&b, "Authorization field: \"digest lab:lab\", the lab's super user.")
	fmt.Fprintln(&b, "Ctrl-C stops everything.")
	return b.String()
}
