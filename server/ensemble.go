package server

import (
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/zkraft/zkraft/consensus"
)

// ensemble reports whether the configuration describes a replicated
// ensemble rather than a standalone server (ZooKeeper's rule: more than one
// server.N line, or one with standaloneEnabled=false).
func (c Config) ensemble() bool {
	return len(c.Servers) > 1 || (len(c.Servers) == 1 && !c.StandaloneEnabled)
}

// EnsemblePeers returns the members a server started with c runs Raft
// with: the server.N lines as consensus peers, sorted by id, or nil for a
// standalone server. An import seeds a data directory with them.
func (c Config) EnsemblePeers() ([]consensus.Peer, error) {
	if !c.ensemble() {
		return nil, nil
	}
	return c.peers()
}

// peers turns the server.N lines into consensus peers, sorted by id.
func (c Config) peers() ([]consensus.Peer, error) {
	out := make([]consensus.Peer, 0, len(c.Servers))
	for id, line := range c.Servers {
		p, err := parseServerLine(id, line)
		if err != nil {
			return nil, fmt.Errorf("server.%d=%s: %w", id, line, err)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// errServerForm is the error for a server.N value of the wrong shape.
var errServerForm = errors.New("want host:peerPort:electionPort[:participant|observer][;[clientAddress:]clientPort]")

// splitServerAddr splits host:peerPort:electionPort[:role] at its colons;
// an IPv6 host is written in brackets, as ZooKeeper wants it
// ([2001:db8::1]:2888:3888), and comes back without them.
func splitServerAddr(addr string) ([]string, error) {
	if !strings.HasPrefix(addr, "[") {
		return strings.Split(addr, ":"), nil
	}
	host, rest, ok := strings.Cut(addr[1:], "]")
	if !ok || !strings.HasPrefix(rest, ":") || net.ParseIP(host) == nil {
		return nil, errServerForm
	}
	return append([]string{host}, strings.Split(rest[1:], ":")...), nil
}

// parseServerLine reads host:peerPort:electionPort[:participant|observer]
// followed by an optional ;[clientAddress:]clientPort. Its errors do not
// repeat the line: the caller says where it is.
func parseServerLine(id int64, line string) (consensus.Peer, error) {
	addr, client, _ := strings.Cut(line, ";")
	parts, err := splitServerAddr(strings.TrimSpace(addr))
	if err != nil || len(parts) < 3 || len(parts) > 4 || parts[0] == "" {
		return consensus.Peer{}, errServerForm
	}
	for i, name := range []string{"peer port", "election port"} {
		if _, err := parsePort(parts[i+1]); err != nil {
			return consensus.Peer{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, port := range parts[1:3] {
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return consensus.Peer{}, fmt.Errorf("server.%d=%s: port %q is not a number", id, line, port)
		}
	}
	p := consensus.Peer{
		ID:          id,
		RaftAddr:    net.JoinHostPort(parts[0], parts[1]),
		ForwardAddr: net.JoinHostPort(parts[0], parts[2]),
	}
	if client = strings.TrimSpace(client); client != "" {
		if !strings.Contains(client, ":") {
			client = "0.0.0.0:" + client
		}
		p.Client = client
	}
	if len(parts) == 4 {
		switch parts[3] {
		case "observer":
			p.Observer = true
		case "participant":
		default:
			return p, fmt.Errorf("role %q is neither participant nor observer", parts[3])
		}
	}
	return p, nil
}
