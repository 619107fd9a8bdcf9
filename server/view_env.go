package server

import (
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
)

// Read-only views of the process: envi's environment, the system
// properties, the trace mask, the last snapshot.

// EnvEntry is one line of envi: a ZooKeeper environment key and its value.
type EnvEntry struct{ Key, Value string }

// Environment returns envi's entries in ZooKeeper's order. The java.*
// keys describe the Go runtime that stands in for the JVM.
func (s *Server) Environment() []EnvEntry {
	host, _ := os.Hostname()
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return []EnvEntry{
		{"zookeeper.version", Version + ", built on " + buildStamp},
		{"host.name", host},
		{"java.version", runtime.Version()},
		{"java.vendor", "zkraft (Go)"},
		{"java.home", runtime.GOROOT()},
		{"java.class.path", ""},
		{"java.library.path", ""},
		{"java.io.tmpdir", os.TempDir()},
		{"java.compiler", "<NA>"},
		{"os.name", runtime.GOOS},
		{"os.arch", runtime.GOARCH},
		{"os.version", ""},
		{"user.name", os.Getenv("USER")},
		{"user.home", home},
		{"user.dir", wd},
		{"os.memory.free", mb(m.HeapIdle)},
		{"os.memory.max", mb(m.Sys)},
		{"os.memory.total", mb(m.HeapSys)},
	}
}

func mb(n uint64) string { return strconv.FormatUint(n>>20, 10) + "MB" }

// SystemProperties returns the JVM-style system properties the server was
// started with (-D flags from SERVER_JVMFLAGS) over the entries of
// Environment and the separators Java reports, sorted by key.
func (s *Server) SystemProperties() []EnvEntry {
	props := map[string]string{"file.separator": string(os.PathSeparator), "line.separator": "\n",
		"path.separator": string(os.PathListSeparator)}
	for _, e := range s.Environment()[1:] { // zookeeper.version is no property
		if !slices.Contains([]string{"host.name", "os.memory.free", "os.memory.max", "os.memory.total"}, e.Key) {
			props[e.Key] = e.Value
		}
	}
	maps.Copy(props, s.cfg.Security.SystemProperties)
	out := make([]EnvEntry, 0, len(props))
	for _, k := range slices.Sorted(maps.Keys(props)) {
		out = append(out, EnvEntry{k, props[k]})
	}
	return out
}

// defaultTraceMask is ZooTrace's default text trace mask.
const defaultTraceMask = 306

// traceMask is the mask gtmk and the AdminServer's get_trace_mask and
// set_trace_mask read and write. zkraft has no ZooTrace: the mask is kept
// for tools that set and read it back, and changes nothing.
var traceMask atomic.Int64

func init() { traceMask.Store(defaultTraceMask) }

// TraceMask returns the trace mask (306 unless SetTraceMask changed it).
func (s *Server) TraceMask() int64 { return traceMask.Load() }

// SetTraceMask sets the trace mask, which has no effect in zkraft.
func (s *Server) SetTraceMask(mask int64) { traceMask.Store(mask) }

// LastSnapshot returns the zxid of the last snapshot this server took or
// loaded and when, or ok false when it has none yet.
func (s *Server) LastSnapshot() (zxid int64, at time.Time, ok bool) {
	info, ok := s.node.LastSnapshot()
	return info.Zxid, info.Time, ok
}
