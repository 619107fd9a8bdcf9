package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// defaultPort is the port of a connect string's host given without one.
const defaultPort = 2181

// parseConnString parses a ZooKeeper connect string as zkCli.sh's client
// does (Java's ConnectStringParser): comma-separated host[:port] entries
// (blank entries are skipped; the port defaults to 2181; an IPv6 literal
// goes in brackets, [::1] or [::1]:2181), then an optional chroot from the
// first '/', which must be a valid znode path ("/" alone means none). It
// returns the servers as host:port strings go-zookeeper dials (IPv6 in
// brackets) and the chroot ("" for none). The errors are Java's messages.
func parseConnString(s string) (servers []string, chroot string, err error) {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		if p := s[i:]; p != "/" {
			if err := validatePath(p); err != nil {
				return nil, "", err
			}
			chroot = p
		}
		s = s[:i]
	}
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		host, port, err := splitConnHost(entry)
		if err != nil {
			return nil, "", err
		}
		if host == "" {
			// Java resolves an empty host name to the loopback address.
			host = "127.0.0.1"
		}
		servers = append(servers, net.JoinHostPort(host, strconv.Itoa(port)))
	}
	if len(servers) == 0 {
		return nil, "", errors.New("A HostProvider may not be empty!")
	}
	return servers, chroot, nil
}

// splitConnHost splits one connect-string entry into host and port, as
// ConnectStringParser and NetUtils.getIPV6HostAndPort do: "[v6]" or
// "[v6]:port"; otherwise the port follows the last ':' (a ':' at the end
// keeps the default port).
func splitConnHost(entry string) (string, int, error) {
	port := strconv.Itoa(defaultPort)
	host := entry
	if strings.HasPrefix(entry, "[") {
		i := strings.LastIndexByte(entry, ']')
		if i < 0 {
			return "", 0, fmt.Errorf("%s starts with '[' but has no matching ']'", entry)
		}
		host = entry[1:i]
		if host == "" {
			return "", 0, fmt.Errorf("%s is empty.", host)
		}
		if len(entry) > i+1 {
			if entry[i+1] != ':' {
				return "", 0, fmt.Errorf("%s does not have : after ]", entry)
			}
			if i+2 == len(entry) {
				return "", 0, fmt.Errorf("%s doesn't have a port after colon.", entry)
			}
			port = entry[i+2:]
		}
	} else if i := strings.LastIndexByte(entry, ':'); i >= 0 {
		if i < len(entry)-1 {
			port = entry[i+1:]
		}
		host = entry[:i]
	}
	n, err := strconv.ParseInt(port, 10, 32)
	if err != nil {
		return "", 0, fmt.Errorf("For input string: \"%s\"", port)
	}
	if n < 0 || n > 65535 {
		return "", 0, fmt.Errorf("port out of range:%d", n)
	}
	return host, int(n), nil
}

// hostList is go-zookeeper's host provider for zkcli: go-zookeeper's
// DNSHostProvider (every address of every host, shuffled, tried in turn),
// except that a host whose name does not resolve is left out, as Java's
// StaticHostProvider skips it, rather than failing the whole connect
// string; the connection fails only when no host resolves.
type hostList struct {
	mu         sync.Mutex
	addrs      []string
	curr, last int
}

// hostLookupTimeout bounds the resolution of a connect string's hosts.
const hostLookupTimeout = 3 * time.Second

func (h *hostList) Init(servers []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), hostLookupTimeout)
	defer cancel()
	var found []string
	var firstErr error
	for _, s := range servers {
		host, port, err := net.SplitHostPort(s)
		if err == nil {
			var addrs []string
			if addrs, err = net.DefaultResolver.LookupHost(ctx, host); err == nil {
				for _, a := range addrs {
					found = append(found, net.JoinHostPort(a, port))
				}
				continue
			}
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if len(found) == 0 {
		return firstErr
	}
	rand.Shuffle(len(found), func(i, j int) { found[i], found[j] = found[j], found[i] })
	h.mu.Lock()
	defer h.mu.Unlock()
	h.addrs, h.curr, h.last = found, -1, -1
	return nil
}

// Len is how many addresses the hosts resolved to.
func (h *hostList) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.addrs)
}

// Next returns the next address; retryStart reports that every address
// was tried since the last connection (go-zookeeper then waits a second).
func (h *hostList) Next() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.curr = (h.curr + 1) % len(h.addrs)
	retryStart := h.curr == h.last
	if h.last == -1 {
		h.last = 0
	}
	return h.addrs[h.curr], retryStart
}

// Connected notes that the current address took the connection.
func (h *hostList) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = h.curr
}
