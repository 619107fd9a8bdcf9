package admin

import (
	"context"
	"time"

	"github.com/zkraft/zkraft/server"
)

// View is what the AdminServer reads of a server: the read-only views
// *server.Server exposes, and the three statistics resets ZooKeeper's
// commands perform. Tests may substitute their own.
type View interface {
	Serving() bool
	Ready(ctx context.Context) error
	Mode() string
	ReadOnly() bool
	Standalone() bool
	Config() server.Config
	ClientPort() int
	LastZxid() int64
	Monitor() []server.MonitorRow
	ServerStats() server.ServerStats
	Connections() []server.ConnInfo
	DirSizes() (data, log int64)
	SessionExpiries() map[int64][]int64
	Ephemerals() map[int64][]string
	WatchesBySession() map[int64][]string
	WatchesByPath() map[string][]int64
	WatchSummary() (conns, paths, watches int)
	Environment() []server.EnvEntry
	SystemProperties() []server.EnvEntry
	TraceMask() int64
	SetTraceMask(mask int64)
	LastSnapshot() (zxid int64, at time.Time, ok bool)
	Leadership() server.Leadership
	Members() []server.Member
	ResetConnectionStats()
	ResetServerStats()
}

var _ View = (*server.Server)(nil)
