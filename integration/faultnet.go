package integration

import "github.com/zkraft/zkraft/internal/faultnet"

// FaultNetwork carries a Cluster's server-to-server traffic (Raft and
// forwarding) over loopback TCP, and can cut links between servers, crash
// one, or slow a link down (package faultnet). Client connections do not
// go through it.
type FaultNetwork = faultnet.Network
