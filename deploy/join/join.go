package join

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// Errors of this package.
var (
	// ErrServerLine is returned for a server.N line without a client port.
	ErrServerLine = errors.New("join: a server line needs host:peerPort:electionPort;[address:]clientPort")
	// ErrNotListed is returned when a reconfig succeeded but
	// /zookeeper/config still does not list the server.
	ErrNotListed = errors.New("join: the ensemble's configuration does not list the server")
)

// configPath is the znode that holds the ensemble's membership.
const configPath = "/zookeeper/config"

// retryEvery is the pause between attempts while the ensemble does not
// answer or refuses the change for now.
var retryEvery = 2 * time.Second

// ClientAddr is the host:port clients reach the server of a
// "server.N=host:peer:election[:role];[address:]port" line (or of its
// value) at: the peer host when the client address is a wildcard.
func ClientAddr(line string) (string, error) {
	if _, v, ok := strings.Cut(line, "="); ok {
		line = v
	}
	peer, client, ok := strings.Cut(line, ";")
	host, _ := splitPeer(peer)
	if !ok || host == "" || strings.TrimSpace(client) == "" {
		return "", fmt.Errorf("%w: %q", ErrServerLine, line)
	}
	client = strings.TrimSpace(client)
	port := client
	if h, p, err := net.SplitHostPort(client); err == nil {
		port = p
		if h != "" && h != "0.0.0.0" && h != "::" {
			host = h
		}
	}
	return net.JoinHostPort(host, port), nil
}

// ClientAddrs are the client addresses of lines, skipping lines that have
// none (a member without a client port cannot be asked).
func ClientAddrs(lines []string) []string {
	var out []string
	for _, l := range lines {
		if a, err := ClientAddr(l); err == nil {
			out = append(out, a)
		}
	}
	return out
}

// Members waits until one of addrs answers and returns the server.N lines
// of its /zookeeper/config, after a sync so that they are the ensemble's
// latest. It tries each address in turn every retryEvery, logging why the
// ensemble does not answer, until ctx ends.
func Members(ctx context.Context, addrs []string, log *slog.Logger) ([]string, error) {
	for {
		var errs []error
		for _, a := range addrs {
			lines, err := membersAt(ctx, a)
			if err == nil {
				return lines, nil
			}
			errs = append(errs, fmt.Errorf("%s: %w", a, err))
		}
		log.Info("waiting for the ensemble to answer", "servers", addrs, "err", errors.Join(errs...))
		if err := pause(ctx); err != nil {
			return nil, err
		}
	}
}

func membersAt(ctx context.Context, addr string) ([]string, error) {
	c, err := dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return members(c)
}

// members reads the server lines of /zookeeper/config.
func members(c *zk.Conn) ([]string, error) {
	if _, err := c.Sync(configPath); err != nil {
		return nil, err
	}
	data, _, err := c.Get(configPath)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "server.") {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// listed reports whether lines hold the key= line.
func listed(lines []string, key string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, key+"=") {
			return true
		}
	}
	return false
}

func pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(retryEvery):
		return nil
	}
}

// PeerAddr is the host:peerPort of a server line (or of its value): the
// address its Raft listener binds.
func PeerAddr(line string) (string, error) {
	if _, v, ok := strings.Cut(line, "="); ok {
		line = v
	}
	peer, _, _ := strings.Cut(line, ";")
	host, ports := splitPeer(peer)
	parts := strings.Split(ports, ":")
	if host == "" || len(parts) < 2 {
		return "", fmt.Errorf("%w: %q", ErrServerLine, line)
	}
	return net.JoinHostPort(host, parts[0]), nil
}

// splitPeer splits host:peerPort:electionPort[:role] into its host and
// the rest; an IPv6 host is in brackets ([2001:db8::1]:2888:3888), as
// ZooKeeper writes it.
func splitPeer(peer string) (host, ports string) {
	if strings.HasPrefix(peer, "[") {
		if v6, rest, ok := strings.Cut(peer[1:], "]"); ok {
			return v6, strings.TrimPrefix(rest, ":")
		}
		return "", ""
	}
	host, ports, _ = strings.Cut(peer, ":")
	return host, ports
}
