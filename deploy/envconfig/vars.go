package envconfig

import "slices"

// The variables the official zookeeper image reads, with the defaults its
// Dockerfile sets (ENV lines) for the ones that have one.
const (
	VarConfDir           = "ZOO_CONF_DIR"
	VarDataDir           = "ZOO_DATA_DIR"
	VarDataLogDir        = "ZOO_DATA_LOG_DIR"
	VarLogDir            = "ZOO_LOG_DIR"
	VarTickTime          = "ZOO_TICK_TIME"
	VarInitLimit         = "ZOO_INIT_LIMIT"
	VarSyncLimit         = "ZOO_SYNC_LIMIT"
	VarAutopurgeInterval = "ZOO_AUTOPURGE_PURGEINTERVAL"
	VarAutopurgeRetain   = "ZOO_AUTOPURGE_SNAPRETAINCOUNT"
	VarMaxClientCnxns    = "ZOO_MAX_CLIENT_CNXNS"
	VarStandalone        = "ZOO_STANDALONE_ENABLED"
	VarAdminServer       = "ZOO_ADMINSERVER_ENABLED"
	VarServers           = "ZOO_SERVERS"
	VarMyID              = "ZOO_MY_ID"
	Var4lwWhitelist      = "ZOO_4LW_COMMANDS_WHITELIST"
	VarCfgExtra          = "ZOO_CFG_EXTRA"
)

// zkraft's own variables.
const (
	// VarIDFromHostname, when "true", takes myid from the host name's
	// trailing "-N" as N+1 (a StatefulSet pod zk-0 is server 1), unless
	// ZOO_MY_ID is set.
	VarIDFromHostname = "ZKRAFT_MY_ID_FROM_HOSTNAME"
	// VarServerLine is this server's own server.N value
	// (host:peerPort:electionPort;clientPort). It is used only when
	// ZOO_SERVERS has no line for this server's id: the server then joins
	// the running ensemble through dynamic reconfig.
	VarServerLine = "ZKRAFT_SERVER_LINE"
	// VarSuperPassword, when set, turns dynamic reconfig on
	// (reconfigEnabled=true) with the digest super user's password set to
	// it; the join step logs in with it.
	VarSuperPassword = "ZKRAFT_SUPER_PASSWORD"
	// VarHostname is read for VarIDFromHostname.
	VarHostname = "HOSTNAME"
)

// Variables the official image reads that zkraft accepts and does not
// turn into zoo.cfg lines: the JVM's flags and log4j's set-up (zkserver
// logs to stderr) and the zkServer.sh ones. zkserver itself reads
// SERVER_JVMFLAGS' -D properties, and a maximum heap from ZK_SERVER_HEAP,
// SERVER_JVMFLAGS and JVMFLAGS as the bound on its heap (GOMEMLIMIT, the
// Go runtime's own, overrides it).
var ignored = []string{VarLogDir, "ZOO_LOG4J_PROP", "JVMFLAGS", "SERVER_JVMFLAGS", "CLIENT_JVMFLAGS", "ZOOCFGDIR", "ZOO_LOG_DIR",
	"ZK_SERVER_HEAP", "GOMEMLIMIT"}

// defaults are the official image's Dockerfile ENV values.
var defaults = map[string]string{
	VarConfDir:           "/conf",
	VarDataDir:           "/data",
	VarDataLogDir:        "/datalog",
	VarLogDir:            "/logs",
	VarTickTime:          "2000",
	VarInitLimit:         "5",
	VarSyncLimit:         "2",
	VarAutopurgeInterval: "0",
	VarAutopurgeRetain:   "3",
	VarMaxClientCnxns:    "60",
	VarStandalone:        "true",
	VarAdminServer:       "true",
}

// defaultServers is what the entrypoint uses when ZOO_SERVERS is empty.
const defaultServers = "server.1=localhost:2888:3888;2181"

// Known lists every variable the image reads, sorted as declared: the
// official image's, zkraft's and the accepted-but-unused ones. Manifest
// checks use it to catch misspelt names.
func Known() []string {
	out := []string{VarConfDir, VarDataDir, VarDataLogDir, VarLogDir, VarTickTime, VarInitLimit, VarSyncLimit,
		VarAutopurgeInterval, VarAutopurgeRetain, VarMaxClientCnxns, VarStandalone, VarAdminServer,
		VarServers, VarMyID, Var4lwWhitelist, VarCfgExtra,
		VarIDFromHostname, VarServerLine, VarSuperPassword, VarHostname, "ZKRAFT_LOG_LEVEL"}
	for _, v := range ignored {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
