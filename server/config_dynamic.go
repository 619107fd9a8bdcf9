package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A ZooKeeper 3.5+ ensemble with reconfigEnabled keeps its membership out
// of zoo.cfg: zoo.cfg names a dynamicConfigFile (ZooKeeper writes
// zoo.cfg.dynamic.<version> and rewrites zoo.cfg to point at it on its
// first start), which holds the server.N lines; its version is its name's suffix.
// zkraft reads that file as ZooKeeper's QuorumPeerConfig does, so such a
// zoo.cfg starts an ensemble member, not a standalone server. zkraft does
// not rewrite the file after a reconfig: the membership in force is
// replicated through Raft and kept in the data directory (see
// docs/migration.md).

// ErrVersionInside is returned for a version= line in a dynamic config
// file: the version is the file name's, as ZooKeeper requires.
var ErrVersionInside = errors.New("a dynamic config file must not hold a version (it is the file name's hex suffix)")

// ErrStaticServerLines is returned when zoo.cfg has server.N (or group or
// weight) lines as well as a dynamicConfigFile, which ZooKeeper refuses too.
var ErrStaticServerLines = errors.New("must be in a separate dynamic config file")

// ErrDynamicKey is returned for a key other than server.N, group and
// weight in a dynamic config file: ZooKeeper refuses to start on one
// ("Unrecognised parameter"), so zkraft does not merely ignore it.
var ErrDynamicKey = errors.New("unrecognised parameter in a dynamic config file (only server.N, group and weight lines belong there)")

// readDynamic reads the dynamicConfigFile, if zoo.cfg names one: its
// server.N lines become Servers, and the hex suffix of its name
// (zoo.cfg.dynamic.100000000) MembershipVersion, 0 without one. Its
// group and weight lines are reported as ignored, as in zoo.cfg; any other
// key is an error, as in ZooKeeper.
func (p *cfgParser) readDynamic(baseDir string) error {
	c := &p.c
	if c.DynamicConfigFile == "" {
		return nil
	}
	if key := p.firstMembershipKey(); key != "" {
		return p.errAt(key, fmt.Errorf("parameter %s %w (dynamicConfigFile is set)", key, ErrStaticServerLines))
	}
	path := resolvePath(baseDir, c.DynamicConfigFile)
	f, err := os.Open(path)
	if err != nil {
		return p.errAt("dynamicConfigFile", err)
	}
	defer f.Close()
	props, err := readProperties(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	dyn := &cfgParser{c: Config{Servers: map[int64]string{}}, name: path, lines: map[string]int{}}
	for _, pr := range props {
		if err := dyn.applyDynamic(pr); err != nil {
			return err
		}
	}
	c.Servers, c.MembershipVersion = dyn.c.Servers, versionFromName(path)
	c.Ignored = append(c.Ignored, dyn.c.Ignored...)
	c.IgnoredKeys = append(c.IgnoredKeys, dyn.c.IgnoredKeys...)
	return nil
}

// firstMembershipKey returns the zoo.cfg key, earliest by line, that
// ZooKeeper wants in the dynamic file rather than next to
// dynamicConfigFile: server.N, and group or weight (hierarchical quorums,
// which zkraft ignores); "" when there is none.
func (p *cfgParser) firstMembershipKey() string {
	first, line := "", 0
	for key, l := range p.lines {
		if !isMembershipKey(key) || (first != "" && l >= line) {
			continue
		}
		first, line = key, l
	}
	return first
}

// isMembershipKey reports whether key belongs in a dynamic config file,
// by ZooKeeper's prefixes.
func isMembershipKey(key string) bool {
	return strings.HasPrefix(key, "server.") || strings.HasPrefix(key, "group") || strings.HasPrefix(key, "weight")
}

// applyDynamic handles one line of a dynamic config file.
func (p *cfgParser) applyDynamic(pr property) error {
	key := pr.key
	var err error
	switch {
	case strings.HasPrefix(key, "server."):
		err = p.server(key, pr.value)
	case key == "version":
		err = ErrVersionInside
	case isMembershipKey(key):
		p.c.Ignored = append(p.c.Ignored, key)
		p.c.IgnoredKeys = append(p.c.IgnoredKeys, classifyIgnored(p.name, pr.line, key))
	default:
		err = ErrDynamicKey
	}
	if err != nil {
		return fmt.Errorf("%s:%d: %s: %w", p.name, pr.line, key, err)
	}
	return nil
}

// versionFromName is the version a dynamic config file's name carries:
// what follows its last dot, read as hexadecimal; 0 when that is not hex.
func versionFromName(path string) int64 {
	name := filepath.Base(path)
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return 0
	}
	v, err := strconv.ParseInt(name[i+1:], 16, 64)
	if err != nil {
		return 0
	}
	return v
}
