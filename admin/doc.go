// Package admin is zkraft's HTTP AdminServer: ZooKeeper 3.8's
// /commands/<name> endpoints (every command and alias, with Jackson's
// pretty JSON, key for key), ZooKeeper 3.9's authenticated snapshot and
// restore commands, and the /ready and /live probes for Kubernetes, over
// HTTP, HTTPS (admin.forceHttps) or both on one port
// (admin.portUnification), as tls.go describes.
//
// It owns HTTP only. Everything it shows comes from the read-only views
// of *server.Server (the View interface); it never takes the data tree's
// lock itself and adds nothing to a client request's path. cmd/zkserver
// starts it from the zoo.cfg's admin.* keys; the integration harness and
// tests leave it off unless a test starts one on 127.0.0.1:0.
//
// It must not import consensus, datatree or session: what it needs of
// them, server exposes.
package admin
