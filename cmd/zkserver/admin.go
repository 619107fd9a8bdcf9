package main

import (
	"log/slog"
	"os"

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
	return func() {
		a.Close()
		closeStores(closeTLS)
	}
}

// closeStores stops reloading the AdminServer's TLS stores, if it has any.
func closeStores(close func()) {
	if close != nil {
		close()
	}
}
