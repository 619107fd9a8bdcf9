package main

import (
	"log/slog"
	"os"
	"strings"

	"github.com/zkraft/zkraft/admin"
	"github.com/zkraft/zkraft/console"
	"github.com/zkraft/zkraft/server"
)

// startAdmin starts the AdminServer when the configuration enables it (a
// zoo.cfg does unless admin.enableServer=false; without a zoo.cfg it is
// off), with the web console at its root unless admin.console.enabled=false,
// and returns what stops it. A port already in use does not stop
// zkserver: ZooKeeper's quorum peers go on without their AdminServer too,
// but here one WARN line says which address and how to move it.
func startAdmin(srv *server.Server, cfg server.Config, cfgPath string, log *slog.Logger) (stop func()) {
	if !cfg.AdminEnableServer {
		return func() {}
	}
	opts := admin.OptionsFrom(cfg)
	opts.Logger = log
	if cfgPath != "" && srv.Standalone() {
		if text, err := os.ReadFile(cfgPath); err == nil {
			opts.InitialConfig = string(text)
		}
	}
	opts.Backups = admin.ServerBackups(srv)
	if !cfg.Admin.ConsoleDisabled {
		opts.Console = console.New(srv, console.Options{Logger: log})
	}
	tlsCfg, closeTLS, err := admin.TLSFrom(cfg, log)
	if err != nil {
		// As ZooKeeper's peers: no AdminServer rather than a plain one.
		log.Warn("AdminServer not started; the server runs without it (fix the ssl.quorum.* stores, or turn admin.forceHttps and admin.portUnification off)",
			"addr", opts.Addr, "err", err)
		return func() {}
	}
	opts.TLS = tlsCfg
	a, err := admin.Start(srv, opts)
	if err != nil {
		log.Warn("AdminServer not started; the server runs without it (set admin.serverPort to a free port, or admin.enableServer=false)",
			"addr", opts.Addr, "err", err)
		closeStores(closeTLS)
		return func() {}
	}
	log.Info("AdminServer access", httpAccess(srv, cfg, opts)...)
	return func() {
		a.Close()
		closeStores(closeTLS)
	}
}

// httpAccess lists each HTTP endpoint and who may use it, for the one
// INFO line at start (docs/security.md has the table).
func httpAccess(srv *server.Server, cfg server.Config, opts admin.Options) []any {
	backups := "super only (superDigest, x509 superUser or SASL superUser)"
	switch {
	case cfg.Admin.SnapshotDisabled && cfg.Admin.RestoreDisabled:
		backups = "disabled"
	case !srv.SuperConfigured():
		backups = "refused: no super identity (set zookeeper.DigestAuthenticationProvider.superDigest)"
	}
	readers := "anyone, each node as its ACL lets an anonymous client read it (credentials read more)"
	if cfg.Security.EnforceAuth {
		readers = "callers with a " + strings.Join(cfg.Security.EnforceAuthSchemes, "/") + " identity or super (enforce.auth)"
	}
	console := "off (admin.console.enabled=false)"
	if opts.Console != nil {
		console = "reads: " + readers + "; writes: verified credentials, each node's ACL"
	}
	return []any{
		"commands", "anyone (server figures, as the four-letter words; no znode data)",
		"snapshot_restore", backups,
		"console", console,
		"probes", "anyone (/ready, /live)",
	}
}

// closeStores stops reloading the AdminServer's TLS stores, if it has any.
func closeStores(close func()) {
	if close != nil {
		close()
	}
}
