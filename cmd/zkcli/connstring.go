package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
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
