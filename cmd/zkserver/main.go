package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/zkraft/zkraft/internal/gctune"
	"github.com/zkraft/zkraft/server"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// The collector's heap goal follows the live heap (see internal/gctune)
	// unless GOGC is set.
	gc := gctune.DefaultConfig()
	if tuner := gctune.Start(gc); tuner != nil {
		defer tuner.Stop()
		log.Debug("gc tuning on", "min_headroom", gc.MinHeadroom, "percent", gc.Percent)
	}
	if err := run(os.Args[1:], log); err != nil {
		fmt.Fprintln(os.Stderr, "zkserver:", err)
		os.Exit(1)
	}
}

// errUsage is the error for bad arguments.
var errUsage = errors.New("usage: zkserver [zoo.cfg]\n       zkserver -pprof host:port [zoo.cfg]\n       zkserver verify DATADIR [DATALOGDIR] | zoo.cfg")

func run(args []string, log *slog.Logger) error {
	if len(args) > 0 && args[0] == "verify" {
		return runVerify(args[1:], os.Stdout)
	}
	fs := flag.NewFlagSet("zkserver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	pprofAddr := fs.String("pprof", "", "serve net/http/pprof, expvar and heap figures over HTTP on `host:port` (off when empty)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, errUsage)
		fs.SetOutput(os.Stderr)
		fs.PrintDefaults()
		return nil
	} else if err != nil {
		return fmt.Errorf("%v\n%w", err, errUsage)
	}
	cfg, err := loadConfig(fs.Args(), log)
	if err != nil {
		return err
	}
	if *pprofAddr != "" {
		stopDebug, err := startDebug(*pprofAddr, log)
		if err != nil {
			return fmt.Errorf("-pprof: %w", err)
		}
		defer stopDebug()
	}
	srv, err := server.New(cfg, server.WithLogger(log), server.WithOnDamage(exitDamaged))
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := srv.Start(startCtx); err != nil {
		return err
	}
	<-ctx.Done()
	log.Info("shutting down")
	return srv.Shutdown()
}

// exitDamaged stops the process with one line when the log turns out
// damaged while serving (Raft would otherwise panic on the error). Every
// acknowledged write is already fsynced, and the kernel drops the dataDir
// lock, so nothing needs closing first.
func exitDamaged(err error) {
	fmt.Fprintln(os.Stderr, "zkserver:", err)
	os.Exit(1)
}

func loadConfig(args []string, log *slog.Logger) (server.Config, error) {
	switch len(args) {
	case 0:
		return server.DefaultConfig(), nil
	case 1:
		cfg, err := server.ParseConfigFile(args[0])
		if err != nil {
			return cfg, err
		}
		for _, key := range cfg.Ignored {
			log.Warn("ignoring configuration key", "key", key)
		}
		return cfg, nil
	default:
		return server.Config{}, errUsage
	}
}
