package buildinfo

import (
	"regexp"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVersionFromBuildInfo(t *testing.T) {
	tagged := &debug.BuildInfo{Main: debug.Module{Version: "v0.4.1"}}
	require.Equal(t, "3.8.0-zkraft-v0.4.1", versionOf(tagged))
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126190802-4026008abcde+dirty"}}
	require.Equal(t, "3.8.0-zkraft-v0.0.0-20261126190802-4026008abcde-dirty", versionOf(stamped))
	clone := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "4026008abcdef0123456789"}, {Key: "vcs.modified", Value: "true"},
		{Key: "vcs.time", Value: "2026-11-26T19:08:02Z"}}}
	require.Equal(t, "3.8.0-zkraft-4026008abcde-dirty", versionOf(clone))
	require.Equal(t, "3.8.0-zkraft", versionOf(nil))

	require.Equal(t, "11/27/2026 01:02 GMT", stampOf("2026-11-27T01:02:03Z", clone), "the link-time stamp wins")
	require.Equal(t, "11/26/2026 19:08 GMT", stampOf("", clone), "else the commit's time")
	require.Equal(t, "01/01/1970 00:00 GMT", stampOf("", nil))
}

// go-zookeeper v1.0.4's FLWSrvr (flw.go, zrVer) accepts the version line
// of this build and of a tagged one.
func TestVersionLineParses(t *testing.T) {
	re := regexp.MustCompile(`^Zookeeper version: ([A-Za-z0-9\.\-]+), built on (\d\d/\d\d/\d\d\d\d \d\d:\d\d [A-Za-z0-9:\+\-]+)$`)
	require.Regexp(t, re, "Zookeeper version: "+Line())
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3+dirty"}}
	require.Regexp(t, re, "Zookeeper version: "+versionOf(stamped)+", built on "+stampOf("", nil))
}
