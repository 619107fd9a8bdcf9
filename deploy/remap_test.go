package deploy_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/zkraft/zkraft/integration"
)

// remap moves an ensemble's host names onto 127.0.0.1: each host:port a
// server line names gets its own free port, the same one wherever it
// appears, as containers or pods on their own addresses would have.
type remap struct {
	t     *testing.T
	ports map[string]int
}

func newRemap(t *testing.T) *remap { return &remap{t: t, ports: map[string]int{}} }

func (r *remap) port(host, port string) string {
	key := host + ":" + port
	if _, ok := r.ports[key]; !ok {
		r.ports[key] = integration.FreePort(r.t)
	}
	return strconv.Itoa(r.ports[key])
}

// line remaps one "host:peer:election[:role];[address:]client" value.
func (r *remap) line(v string) string {
	peer, client, _ := strings.Cut(v, ";")
	parts := strings.Split(peer, ":")
	host := parts[0]
	parts[0] = "127.0.0.1"
	parts[1], parts[2] = r.port(host, parts[1]), r.port(host, parts[2])
	out := strings.Join(parts, ":")
	if client != "" {
		cport := client
		if i := strings.LastIndexByte(client, ':'); i >= 0 {
			cport = client[i+1:]
		}
		out += ";" + r.port(host, cport)
	}
	return out
}

// servers remaps a ZOO_SERVERS value.
func (r *remap) servers(v string) string {
	var out []string
	for _, s := range strings.Fields(v) {
		key, val, _ := strings.Cut(s, "=")
		out = append(out, key+"="+r.line(val))
	}
	return strings.Join(out, " ")
}

// client is the remapped client address of a server line's host.
func (r *remap) client(v string) string {
	host, _, _ := strings.Cut(v, ":")
	_, client, _ := strings.Cut(v, ";")
	if i := strings.LastIndexByte(client, ':'); i >= 0 {
		client = client[i+1:]
	}
	return "127.0.0.1:" + r.port(host, client)
}

// loopbackExtra keeps a server's other listeners on 127.0.0.1 and free
// ports (the last of duplicate keys wins, so it goes after the image's).
func loopbackExtra(t *testing.T) string {
	return fmt.Sprintf("clientPortAddress=127.0.0.1 admin.serverAddress=127.0.0.1 admin.serverPort=%d metricsProvider.httpHost=127.0.0.1 metricsProvider.httpPort=%d",
		integration.FreePort(t), integration.FreePort(t))
}
