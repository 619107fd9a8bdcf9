package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/zkraft/zkraft/deploy/envconfig"
	"github.com/zkraft/zkraft/deploy/join"
)

// runContainer is `zkserver container [command [args...]]`, the container
// image's entrypoint: it writes $ZOO_CONF_DIR/zoo.cfg and
// $ZOO_DATA_DIR/myid from the official zookeeper image's variables unless
// they exist (package deploy/envconfig), then serves from that zoo.cfg,
// the rest of the arguments being zkserver's flags. A first argument that
// is another program (zkcli, say) is run instead, as the official
// entrypoint's exec "$@" does. A server that ZOO_SERVERS does not list
// and that has a ZKRAFT_SERVER_LINE joins the running ensemble (package
// deploy/join).
func runContainer(args []string, stderr io.Writer) error {
	log := slog.New(slog.NewTextHandler(stderr, nil))
	s, err := envconfig.FromEnv(lookupEnv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	servers, err := containerServers(ctx, s, log)
	if err != nil {
		return err
	}
	if own := join.OwnLine(servers, s.MyID); own != "" && len(servers) > 1 {
		if err := join.WaitResolvable(ctx, own, log); err != nil {
			return err
		}
	}
	wrote, err := s.Write(servers)
	if err != nil {
		return err
	}
	log.Info("container configuration", "zoo.cfg", s.ConfigPath(), "generated", wrote, "myid", s.MyIDPath())
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") && filepath.Base(args[0]) != "zkserver" {
		return execCommand(args)
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		args = args[1:]
	}
	if s.Join != nil {
		go joinEnsemble(ctx, s.Join, log)
	}
	return run(append(args, s.ConfigPath()), stderr)
}

// lookupEnv is os.LookupEnv, with the kernel's host name for an unset
// HOSTNAME (Kubernetes sets it to the pod's name; not every runtime does).
func lookupEnv(name string) (string, bool) {
	v, ok := os.LookupEnv(name)
	if !ok && name == envconfig.VarHostname {
		h, err := os.Hostname()
		return h, err == nil
	}
	return v, ok
}

// containerServers are the server lines of the zoo.cfg to write: those of
// ZOO_SERVERS, or for a joining server that has never run, the running
// ensemble's members and itself. A joining server with data of its own
// was a member before: it starts at once, whatever the others do, since
// its Raft state names the ensemble.
func containerServers(ctx context.Context, s envconfig.Settings, log *slog.Logger) ([]string, error) {
	if s.Join == nil || s.HasConfig() {
		return s.Servers, nil
	}
	if hasState(s) {
		return s.Join.JoinServers(s.Join.Ensemble), nil
	}
	live, err := join.Members(ctx, join.ClientAddrs(s.Join.Ensemble), log)
	if err != nil {
		return nil, fmt.Errorf("join: %w", err)
	}
	return s.Join.JoinServers(live), nil
}

// hasState reports whether the data directories hold a file other than
// myid (empty directories, such as a dataLogDir inside dataDir, are no
// state).
func hasState(s envconfig.Settings) bool {
	found := false
	for _, dir := range []string{s.DataDir, s.DataLogDir} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && path != s.MyIDPath() {
				found = true
				return fs.SkipAll
			}
			return nil
		})
	}
	return found
}

// joinEnsemble asks the ensemble to add this server once its Raft
// listener is up, retrying until it is a member or the process stops.
func joinEnsemble(ctx context.Context, j *envconfig.Join, log *slog.Logger) {
	peer, err := join.PeerAddr(j.Line)
	if err != nil {
		log.Error("join: not joining", "err", err)
		return
	}
	err = join.Add(ctx, join.Request{Servers: join.ClientAddrs(j.Ensemble), Key: j.Key(), Line: j.Line,
		Password: j.Password, PeerAddr: peer, Log: log})
	if err != nil && ctx.Err() == nil {
		log.Error("join: gave up", "err", err)
	}
}
