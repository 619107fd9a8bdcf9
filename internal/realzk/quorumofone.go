package realzk

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// StartQuorumOfOne launches ZooKeeper as a quorum of one member:
// QuorumPeerMain with standaloneEnabled=false, reconfigEnabled=true,
// myid 1 and a single server.1 line that carries the client address
// (server.1=127.0.0.1:peer:election;127.0.0.1:client). Such a server leads
// its own quorum (srvr shows Mode: leader), accepts reconfig, and on its
// first start does what ZooKeeper 3.5+ does to every zoo.cfg with server
// lines and reconfig on: it moves the membership into
// zoo.cfg.dynamic.<version> and rewrites zoo.cfg to name that file
// (keeping the original as zoo.cfg.bak). dir is handled as by Start, and
// the Server it returns is stopped with Stop.
func StartQuorumOfOne(dir string, opts Options) (*Server, error) {
	return startRetrying(dir, opts, launchQuorumOfOne)
}

// quorumOfOneConfig returns the zoo.cfg of StartQuorumOfOne's server.
func quorumOfOneConfig(dataDir string, ports []int, opts Options) []byte {
	cfg := baseConfig(dataDir, ports[0], opts)
	cfg["initLimit"] = "10"
	cfg["syncLimit"] = "5"
	cfg["standaloneEnabled"] = "false"
	cfg["reconfigEnabled"] = "true"
	cfg["server.1"] = fmt.Sprintf("127.0.0.1:%d:%d;127.0.0.1:%d", ports[1], ports[2], ports[0])
	merge(cfg, opts.ExtraConfig)
	return formatConfig(cfg)
}

// launchQuorumOfOne writes data/myid and zoo.cfg for free ports and starts
// the QuorumPeerMain JVM, without waiting for it.
func launchQuorumOfOne(dir string, opts Options) (*Server, error) {
	ports, err := freePorts(3) // client, peer, election
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(data, "myid"), []byte("1\n"), 0o644); err != nil {
		return nil, err
	}
	opts, adminAddr, err := withAdmin(opts)
	if err != nil {
		return nil, err
	}
	j, err := launch(dir, quorumMain, quorumOfOneConfig(data, ports, opts), opts)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
	return &Server{addr: addr, adminAddr: adminAddr, dir: dir, jvm: j}, nil
}
