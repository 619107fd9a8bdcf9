package main

import (
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkraft/zkraft/wire"
)

// javaProperties reads text as java.util.Properties.load does for the
// simple files ZooKeeper's tools write: one key=value (or key:value, or
// "key value") per line, blanks and #/! comment lines skipped, key and
// value trimmed. Line continuations and escapes are not supported. The
// pairs come back in file order.
func javaProperties(text string) [][2]string {
	var out [][2]string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		i := strings.IndexAny(line, "=: \t")
		if i < 0 {
			out = append(out, [2]string{line, ""})
			continue
		}
		key, val := line[:i], strings.TrimSpace(line[i:])
		if val != "" && (val[0] == '=' || val[0] == ':') {
			val = strings.TrimSpace(val[1:])
		}
		out = append(out, [2]string{key, val})
	}
	return out
}

// javaHashOrder returns keys (in insertion order) in the order Java 9+'s
// Properties, a ConcurrentHashMap of default size, iterates them: by hash
// bin, insertion order within a bin. It is exact while the table has not
// grown beyond 16 bins (12 keys); beyond that it is an approximation.
func javaHashOrder(keys []string) []string {
	n := uint32(16)
	for uint32(len(keys)) > n*3/4 {
		n *= 2
	}
	bins := make([][]string, n)
	for _, k := range keys {
		h := javaStringHash(k)
		b := (h ^ h>>16) & 0x7fffffff & (n - 1)
		bins[b] = append(bins[b], k)
	}
	var out []string
	for _, b := range bins {
		out = append(out, b...)
	}
	return out
}

// javaStringHash is String.hashCode over the string's UTF-16 code units.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + uint32(0xd800+(r>>10))
			h = 31*h + uint32(0xdc00+(r&0x3ff))
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}

// clientConfigString is ConfigUtils.getClientConfigStr, what config -c
// prints: the configuration's version, a space, and the servers' client
// addresses joined by commas, in Properties' iteration order.
func clientConfigString(config string) string {
	values := map[string]string{}
	var keys []string
	for _, kv := range javaProperties(config) {
		if _, dup := values[kv[0]]; !dup {
			keys = append(keys, kv[0])
		}
		values[kv[0]] = kv[1]
	}
	version := ""
	var addrs []string
	for _, k := range javaHashOrder(keys) {
		v := values[k]
		if k == "version" {
			version = v
		}
		if !strings.HasPrefix(k, "server.") {
			continue
		}
		addrs = append(addrs, clientAddress(v))
	}
	return version + " " + strings.Join(addrs, ",")
}

// clientAddress is the client address of a server line
// ("host:port:port[:role][;[host:]port]") as host:port, the host 0.0.0.0
// when only a port is given, "" when the line names no client address.
func clientAddress(server string) string {
	_, client, ok := strings.Cut(server, ";")
	if !ok {
		return ""
	}
	client = strings.TrimSpace(client)
	host, port := "0.0.0.0", client
	if i := strings.LastIndexByte(client, ':'); i >= 0 {
		host, port = client[:i], client[i+1:]
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	return host + ":" + port
}

// zkStat converts a wire Stat to go-zookeeper's, for printStat.
func zkStat(s *wire.Stat) *zk.Stat {
	return &zk.Stat{Czxid: s.Czxid, Mzxid: s.Mzxid, Ctime: s.Ctime, Mtime: s.Mtime, Version: s.Version,
		Cversion: s.Cversion, Aversion: s.Aversion, EphemeralOwner: s.EphemeralOwner,
		DataLength: s.DataLength, NumChildren: s.NumChildren, Pzxid: s.Pzxid}
}
