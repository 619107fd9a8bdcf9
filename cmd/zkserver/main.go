package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/zkraft/zkraft/server"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := run(os.Args[1:], log); err != nil {
		fmt.Fprintln(os.Stderr, "zkserver:", err)
		os.Exit(1)
	}
}

func run(args []string, log *slog.Logger) error {
	cfg, err := loadConfig(args, log)
	if err != nil {
		return err
	}
	srv, err := server.New(cfg, server.WithLogger(log))
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
		return server.Config{}, fmt.Errorf("usage: zkserver [zoo.cfg]")
	}
}
