// Package envconfig turns the official `zookeeper` container image's
// environment variables into a zoo.cfg and a myid file, so that the zkraft
// image (which has no shell to run docker-entrypoint.sh) takes the same
// docker run and docker-compose settings.
//
// The translation follows the official image's entrypoint for ZooKeeper
// 3.8: the zoo.cfg is written only when $ZOO_CONF_DIR/zoo.cfg does not
// exist (a mounted zoo.cfg wins), its keys come in the script's order with
// the Dockerfile's defaults for unset variables, ZOO_SERVERS and
// ZOO_CFG_EXTRA are split at white space (spaces or newlines) into one line
// each, and $ZOO_DATA_DIR/myid is written only when missing.
//
// zkraft adds a few ZKRAFT_* variables for Kubernetes: the id from the
// StatefulSet pod's ordinal, the super user's password that turns dynamic
// reconfig on, and a server line for a pod beyond ZOO_SERVERS, which then
// joins the running ensemble (see package deploy/join and docs/deploy.md).
//
// The package reads no environment itself (the caller passes a lookup
// function) and does no network I/O. It must not import server: it writes
// text that the server's own zoo.cfg parser reads.
package envconfig
