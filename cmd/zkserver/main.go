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
	"strings"
	"syscall"
	"time"

	"github.com/zkraft/zkraft/auth/jaas"
	"github.com/zkraft/zkraft/internal/gctune"
	"github.com/zkraft/zkraft/metrics/exporter"
	"github.com/zkraft/zkraft/server"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zkserver:", err)
		os.Exit(1)
	}
}

// errUsage is the error for bad arguments.
var errUsage = errors.New("usage: zkserver [-version] [-port port] [-data-dir dir] [-log-level level] [-pprof host:port] [-jaas file] [zoo.cfg]\n       zkserver verify DATADIR [DATALOGDIR] | zoo.cfg\n       zkserver import [-progress] ZK_DATADIR [ZK_DATALOGDIR] -to zoo.cfg|DATADIR\n       zkserver export [-progress] zoo.cfg|DATADIR [DATALOGDIR] -to ZK_DATADIR\n       zkserver export-tree|import-tree ... (see zkserver export-tree -h)\n       zkserver container [zkserver [flags] | command [args...]]   (the container image's entrypoint; docs/deploy.md)\n       zkserver healthcheck [zoo.cfg]")

// logLevelEnv names the environment variable that sets the log level when
// -log-level is not given.
const logLevelEnv = "ZKRAFT_LOG_LEVEL"

func run(args []string, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "verify":
			return runVerify(args[1:], os.Stdout)
		case "import":
			return runImport(args[1:], os.Stdout, stderr)
		case "export":
			return runExport(args[1:], os.Stdout, stderr)
		case "export-tree":
			return runExportTree(args[1:], os.Stdout, stderr)
		case "import-tree":
			return runImportTree(args[1:], os.Stdin, stderr)
		case "container":
			return runContainer(args[1:], stderr)
		case "healthcheck":
			return runHealthcheck(args[1:], os.Stdout)
		}
	}
	fs := flag.NewFlagSet("zkserver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	pprofAddr := fs.String("pprof", "", "serve net/http/pprof, expvar and heap figures over HTTP on `host:port` (off when empty)")
	levelName := fs.String("log-level", "", "log `level`: debug, info, warn or error (default $"+logLevelEnv+", else info)")
	showVersion := fs.Bool("version", false, "print zkserver's version and build time, then exit")
	jaasFile := fs.String("jaas", "", "JAAS login configuration `file` whose Server section lists the SASL users\n(default: -Djava.security.auth.login.config in $"+jvmFlagsEnv+")")
	var over overrides
	over.register(fs)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		printHelp(fs, stderr)
		return nil
	} else if err != nil {
		return fmt.Errorf("%v\n%w", err, errUsage)
	}
	if *showVersion {
		fmt.Println("zkserver", server.BuildVersion())
		return nil
	}
	level, err := logLevel(*levelName, os.Getenv(logLevelEnv))
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// The collector's heap goal follows the live heap (see internal/gctune)
	// unless GOGC is set.
	gc := gctune.DefaultConfig()
	if tuner := gctune.Start(gc); tuner != nil {
		defer tuner.Stop()
		log.Debug("gc tuning on", "min_headroom", gc.MinHeadroom, "percent", gc.Percent, "max_percent", gc.MaxPercent, "max_gc_share", gc.MaxGCShare)
	}
	stopLimit, err := limitMemory(os.LookupEnv, log)
	if err != nil {
		return err
	}
	defer stopLimit()
	cfg, err := loadConfig(fs.Args(), os.Getenv(jvmFlagsEnv), *jaasFile, log)
	if err != nil {
		return err
	}
	if err := over.apply(fs, &cfg); err != nil {
		return err
	}
	if *pprofAddr != "" {
		stopDebug, err := startDebug(*pprofAddr, log)
		if err != nil {
			return fmt.Errorf("-pprof: %w", err)
		}
		defer stopDebug()
	}
	if cfg.Metrics.Prometheus() {
		// Before the start, so that raft_* sees the first election.
		if err := exporter.InstallRaftMetrics(); err != nil {
			return fmt.Errorf("metricsProvider: %w", err)
		}
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
		if ctx.Err() != nil { // SIGINT or SIGTERM during the start: a clean stop
			log.Info("stopped while starting")
			return srv.Shutdown()
		}
		return err
	}
	stopMetrics, err := startMetrics(cfg.Metrics, srv, log)
	if err != nil {
		srv.Shutdown()
		return err
	}
	defer stopMetrics()
	stopAdmin := startAdmin(srv, cfg, cfgPath(fs.Args()), log)
	<-ctx.Done()
	log.Info("shutting down")
	stopAdmin()
	return srv.Shutdown()
}

// startMetrics serves /metrics when zoo.cfg names ZooKeeper's Prometheus
// provider; a port that cannot be opened stops the start, as it stops
// ZooKeeper's.
func startMetrics(m server.MetricsProvider, srv *server.Server, log *slog.Logger) (stop func(), err error) {
	if !m.Prometheus() {
		return func() {}, nil
	}
	exp, err := exporter.Start(srv, exporter.Config{Addr: m.Addr(), ExportRuntime: m.ExportJvmInfo, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("metricsProvider: %w", err)
	}
	log.Info("metrics listening", "addr", exp.Addr().String(), "path", exporter.Path, "runtime", m.ExportJvmInfo)
	return func() { exp.Close() }, nil
}

// exitDamaged stops the process with one line when the log turns out
// damaged while serving (Raft would otherwise panic on the error). Every
// acknowledged write is already fsynced, and the kernel drops the dataDir
// lock, so nothing needs closing first.
func exitDamaged(err error) {
	fmt.Fprintln(os.Stderr, "zkserver:", err)
	os.Exit(1)
}

// jvmFlagsEnv names the variable zkServer.sh passes JVM flags in; its -D
// properties (the JAAS file, zookeeper.* security settings) apply as
// they do to ZooKeeper, under the zoo.cfg's keys.
const jvmFlagsEnv = "SERVER_JVMFLAGS"

// loadConfig reads the zoo.cfg, if any, over the JVM flags' properties;
// jaasFile (-jaas) overrides the flags' login configuration.
func loadConfig(args []string, jvmFlags, jaasFile string, log *slog.Logger) (server.Config, error) {
	if len(args) > 1 {
		return server.Config{}, errUsage
	}
	flags, err := jaas.ParseJVMFlags(jvmFlags)
	if err != nil {
		return server.Config{}, fmt.Errorf("%s: %w", jvmFlagsEnv, err)
	}
	props := flags.Properties
	if jaasFile != "" {
		if props == nil {
			props = map[string]string{}
		}
		props[loginConfigProperty] = jaasFile
	}
	path := ""
	if len(args) == 1 {
		path = args[0]
	}
	cfg, err := server.ParseConfigFileWithProperties(path, props)
	if err != nil {
		return cfg, err
	}
	for _, k := range cfg.IgnoredKeys {
		log.Warn(k.String(), "file", k.File, "line", k.Line, "key", k.Key, "known", k.Known)
	}
	return cfg, nil
}

// cfgPath is the zoo.cfg named on the command line, "" when none.
func cfgPath(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return ""
}

// loginConfigProperty is the JVM property naming the JAAS file.
const loginConfigProperty = "java.security.auth.login.config"

// logLevel picks the level from the flag, else the environment, else info.
func logLevel(flagValue, envValue string) (slog.Level, error) {
	name, from := flagValue, "-log-level"
	if name == "" {
		name, from = envValue, logLevelEnv
	}
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "info":
		return slog.LevelInfo, nil
	case "debug":
		return slog.LevelDebug, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("%s: %q is not a log level (debug, info, warn or error)", from, name)
}
