package server

import (
	"fmt"
	"net"
	"sort"
	"strings"

	"github.com/zkraft/zkraft/consensus"
)

// ensemble reports whether the configuration describes a replicated
// ensemble rather than a standalone server (ZooKeeper's rule: more than one
// server.N line, or one with standaloneEnabled=false).
func (c Config) ensemble() bool {
	return len(c.Servers) > 1 || (len(c.Servers) == 1 && !c.StandaloneEnabled)
}

// peers turns the server.N lines into consensus peers, sorted by id.
func (c Config) peers() ([]consensus.Peer, error) {
	out := make([]consensus.Peer, 0, len(c.Servers))
	for id, line := range c.Servers {
		p, err := parseServerLine(id, line)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// parseServerLine reads host:peerPort:electionPort[:participant|observer]
// followed by an optional ;[clientAddress:]clientPort.
func parseServerLine(id int64, line string) (consensus.Peer, error) {
	addr, _, _ := strings.Cut(line, ";")
	parts := strings.Split(strings.TrimSpace(addr), ":")
	if len(parts) < 3 || len(parts) > 4 {
		return consensus.Peer{}, fmt.Errorf("server.%d=%s: want host:peerPort:electionPort[:participant|observer]", id, line)
	}
	p := consensus.Peer{
		ID:          id,
		RaftAddr:    net.JoinHostPort(parts[0], parts[1]),
		ForwardAddr: net.JoinHostPort(parts[0], parts[2]),
	}
	if len(parts) == 4 {
		switch parts[3] {
		case "observer":
			p.Observer = true
		case "participant":
		default:
			return p, fmt.Errorf("server.%d=%s: role %q is neither participant nor observer", id, line, parts[3])
		}
	}
	return p, nil
}

// membership is the text ZooKeeper keeps in /zookeeper/config for a static
// configuration: one server.N line per member as host:peerPort:electionPort
// :participant|observer, with ;clientAddress:port only where the server.N
// line gave one, then the configuration's version (0, in hex).
func (c Config) membership() []byte {
	var b strings.Builder
	ids := make([]int64, 0, len(c.Servers))
	for id := range c.Servers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		addr, client, hasClient := strings.Cut(c.Servers[id], ";")
		parts := strings.Split(strings.TrimSpace(addr), ":")
		role := "participant"
		if len(parts) == 4 {
			role = parts[3]
		}
		fmt.Fprintf(&b, "server.%d=%s:%s:%s:%s", id, parts[0], parts[1], parts[2], role)
		if client = strings.TrimSpace(client); hasClient && client != "" {
			if !strings.Contains(client, ":") {
				client = "0.0.0.0:" + client
			}
			b.WriteString(";" + client)
		}
		b.WriteString("\n")
	}
	b.WriteString("version=0")
	return []byte(b.String())
}
