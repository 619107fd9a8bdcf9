package envconfig

import (
	"fmt"
	"strings"
)

// ZooCfg renders the zoo.cfg the official entrypoint would write, with
// servers as the server.N lines: s.Servers for a member of ZOO_SERVERS,
// the running ensemble's lines plus its own for a server that joins.
//
// The keys come in the script's order. zkraft adds reconfigEnabled and
// the super digest when ZKRAFT_SUPER_PASSWORD is set, before
// ZOO_CFG_EXTRA so that an extra line can still override them (the last
// duplicate wins, as in Java's Properties).
func (s Settings) ZooCfg(servers []string) string {
	var b strings.Builder
	kv := func(k, v string) { fmt.Fprintf(&b, "%s=%s\n", k, v) }
	kv("dataDir", s.DataDir)
	kv("dataLogDir", s.DataLogDir)
	kv("tickTime", s.get(VarTickTime))
	kv("initLimit", s.get(VarInitLimit))
	kv("syncLimit", s.get(VarSyncLimit))
	kv("autopurge.snapRetainCount", s.get(VarAutopurgeRetain))
	kv("autopurge.purgeInterval", s.get(VarAutopurgeInterval))
	kv("maxClientCnxns", s.get(VarMaxClientCnxns))
	kv("standaloneEnabled", s.get(VarStandalone))
	kv("admin.enableServer", s.get(VarAdminServer))
	for _, l := range servers {
		fmt.Fprintln(&b, l)
	}
	if w := s.get(Var4lwWhitelist); w != "" {
		kv("4lw.commands.whitelist", w)
	}
	if s.super != "" {
		kv("reconfigEnabled", "true")
		kv("DigestAuthenticationProvider.superDigest", SuperDigest("super", s.super))
	}
	for _, l := range strings.Fields(s.get(VarCfgExtra)) {
		fmt.Fprintln(&b, l)
	}
	return b.String()
}

// JoinServers are the server lines of a joining server's zoo.cfg: the
// running ensemble's members (live, from its /zookeeper/config) and its
// own line, unless the ensemble already lists it.
func (j *Join) JoinServers(live []string) []string {
	out := append([]string(nil), live...)
	if !hasServer(out, j.ID) {
		out = append(out, j.Key()+"="+j.Line)
	}
	return out
}
