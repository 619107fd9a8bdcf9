package realzk

import (
	"maps"
	"net"
	"os"
	"strconv"
)

// ServletJar is the servlet API jar that Jetty, ZooKeeper's AdminServer,
// needs on the classpath: zookeeper.jar's manifest does not name it, and
// without it the AdminServer silently does not start.
const ServletJar = JarDir + "/servlet-api.jar"

// withAdmin returns opts with ZooKeeper's AdminServer turned on at
// 127.0.0.1:port (the caller's ExtraConfig is copied, not changed), and
// the AdminServer's address; opts as they are and "" unless
// opts.AdminServer.
func withAdmin(opts Options) (Options, string, error) {
	if !opts.AdminServer {
		return opts, "", nil
	}
	port, err := freePort()
	if err != nil {
		return opts, "", err
	}
	extra := map[string]string{
		"admin.enableServer":  "true",
		"admin.serverAddress": "127.0.0.1",
		"admin.serverPort":    strconv.Itoa(port),
	}
	maps.Copy(extra, opts.ExtraConfig)
	opts.ExtraConfig = extra
	return opts, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
}

// adminJars returns the jars the AdminServer adds to the classpath.
func adminJars(opts Options) []string {
	if _, err := os.Stat(ServletJar); err != nil || !opts.AdminServer {
		return nil
	}
	return []string{ServletJar}
}

// AdminAddr returns the AdminServer's host:port ("" unless started with
// Options.AdminServer).
func (s *Server) AdminAddr() string { return s.adminAddr }

// AdminAddrs returns the members' AdminServer addresses in the order of
// Addrs (empty strings unless started with Options.AdminServer).
func (e *Ensemble) AdminAddrs() []string {
	out := make([]string, len(e.members))
	for i, m := range e.members {
		out[i] = m.adminAddr
	}
	return out
}
