// Package join adds a new server to a running ensemble through dynamic
// reconfig, the way an operator would with zkCli.sh: read the ensemble's
// members from /zookeeper/config, start the new server from a zoo.cfg that
// lists them and itself, then `reconfig -add server.N=...` as the super
// user, repeated until /zookeeper/config lists it.
//
// The container image's entrypoint uses it for a StatefulSet pod whose
// ordinal lies beyond ZOO_SERVERS (package deploy/envconfig), so that
// scaling from 3 to 5 replicas adds two voters. Every step is idempotent:
// a restarted pod that is already a member changes nothing.
//
// It is a client of the ensemble (go-zookeeper, as cmd/zkcli) and must not
// import the server packages.
package join
