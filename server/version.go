package server

import "github.com/zkraft/zkraft/internal/buildinfo"

// Version is the version srvr, mntr, envi and the AdminServer report
// (see buildinfo.Version), and buildStamp their "built on" date.
var (
	Version    = buildinfo.Version
	buildStamp = buildinfo.Stamp
)

// BuildVersion is the line `zkserver -version` prints.
func BuildVersion() string { return buildinfo.Line() }
