package buildinfo

import (
	"runtime/debug"
	"strings"
	"time"
)

// zkVersion is the ZooKeeper release whose protocol and outputs zkraft
// follows; tools that parse srvr or envi see it first.
const zkVersion = "3.8.0"

// Version is the version srvr, mntr, envi and the AdminServer report, in
// ZooKeeper's form: "3.8.0-zkraft" followed by zkraft's own version from
// the module's build info (the tag `go install ...@vX.Y.Z` built, or the
// commit a clone was built from, "-dirty" when it had local changes).
// It holds only letters, digits, dots and dashes, which is what
// go-zookeeper's FLWSrvr accepts there ("+dirty" becomes "-dirty").
var Version = versionOf(readBuildInfo())

// Stamp is the "built on" date in ZooKeeper's pre-3.7 form, which is
// what go-zookeeper's FLWSrvr parses: the time given at link time
// (-ldflags "-X github.com/zkraft/zkraft/internal/buildinfo.buildTime=<RFC 3339>", as
// make build and make release do), else the commit's time from the build
// info, else the Unix epoch.
var Stamp = stampOf(buildTime, readBuildInfo())

// buildTime is set at link time (see Stamp); "" when it is not.
var buildTime string

func readBuildInfo() *debug.BuildInfo {
	info, _ := debug.ReadBuildInfo()
	return info
}

// versionOf builds Version from the build info (nil in tests built
// without it).
func versionOf(info *debug.BuildInfo) string {
	v := zkVersion + "-zkraft"
	if info == nil {
		return v
	}
	if m := info.Main.Version; m != "" && m != "(devel)" {
		return v + "-" + strings.Map(versionRune, m)
	}
	rev, dirty := setting(info, "vcs.revision"), setting(info, "vcs.modified") == "true"
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += "-" + rev
		if dirty {
			v += "-dirty"
		}
	}
	return v
}

// stampOf formats the build time as ZooKeeper's "MM/dd/yyyy HH:mm GMT".
func stampOf(linked string, info *debug.BuildInfo) string {
	t, err := time.Parse(time.RFC3339, linked)
	if err != nil && info != nil {
		t, err = time.Parse(time.RFC3339, setting(info, "vcs.time"))
	}
	if err != nil {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format("01/02/2006 15:04") + " GMT"
}

// versionRune keeps the runes FLWSrvr accepts in a version and turns any
// other into a dash.
func versionRune(r rune) rune {
	if r == '.' || r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
		return r
	}
	return '-'
}

func setting(info *debug.BuildInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// Line is the version line every zkraft command prints for -version:
// Version, built on Stamp.
func Line() string { return Version + ", built on " + Stamp }
