package treejson

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"
)

// Format and Version identify a tree export.
const (
	Format  = "zkraft-treejson"
	Version = 1
)

// Header is the document around the nodes.
type Header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Root is the exported subtree's path.
	Root string `json:"root"`
}

// Modes of a node.
const (
	ModePersistent = "persistent"
	// ModeEphemeral is exported for the record; Import skips it unless
	// asked otherwise (see Ephemerals).
	ModeEphemeral = "ephemeral"
	// ModeContainer and ModeTTL are honoured by Import; Export cannot
	// tell them from ModePersistent (see the package documentation).
	ModeContainer = "container"
	ModeTTL       = "ttl"
)

// Node is one exported znode.
type Node struct {
	Path string `json:"path"`
	// Data is the node's data; encoding/json writes it as base64.
	Data []byte `json:"data"`
	ACL  []ACL  `json:"acl"`
	Mode string `json:"mode"`
	// Sequential is set when the export saw the node as a sequential
	// child: its name ends in ten digits, as ZooKeeper formats a sequence
	// number (%010d), and the number is below its parent's cversion, the
	// counter ZooKeeper numbers sequential children with, so that counter
	// has covered it (see SawSequential). Import creates the node under its
	// very name either way; the flag only tells it to move the parent's
	// counter past the number.
	Sequential bool `json:"sequential,omitempty"`
	// TTLMillis is a TTL node's time to live.
	TTLMillis int64 `json:"ttl_ms,omitempty"`
	// Stat is what the source server said about the node, for the record:
	// Import cannot set any of it.
	Stat Stat `json:"stat"`
}

// ACL is one ACL entry.
type ACL struct {
	Perms  int32  `json:"perms"`
	Scheme string `json:"scheme"`
	ID     string `json:"id"`
}

// Stat is the part of a node's Stat an export records.
type Stat struct {
	Czxid          int64 `json:"czxid"`
	Mzxid          int64 `json:"mzxid"`
	Ctime          int64 `json:"ctime"`
	Mtime          int64 `json:"mtime"`
	Version        int32 `json:"version"`
	Cversion       int32 `json:"cversion"`
	Aversion       int32 `json:"aversion"`
	EphemeralOwner int64 `json:"ephemeral_owner,omitempty"`
	NumChildren    int32 `json:"num_children"`
}

// ErrFormat is wrapped by every error about a document Import cannot read.
var ErrFormat = errors.New("treejson: not a tree export")

// ErrExists is returned by Import when a node it would create exists and
// overwriting was not asked for.
var ErrExists = errors.New("treejson: node exists")

// sequenceDigits is how many digits ZooKeeper gives the counter it
// appends to a sequential node's name (%010d).
const sequenceDigits = 10

// sequenceNumber returns the number a name ends in when its last ten
// characters are digits.
func sequenceNumber(name string) (int64, bool) {
	if len(name) < sequenceDigits {
		return 0, false
	}
	digits := name[len(name)-sequenceDigits:]
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil
}

// SawSequential is the rule Export marks sequential nodes by: the name
// ends in ten digits and their number is below parentCversion, the
// parent's child version, from which ZooKeeper takes a sequential child's
// number (and which every create and delete of a child raises by one). A
// plain node whose name merely ends in digits, such as event-1732761234
// (a Unix time) under a parent with a few hundred child changes, is not
// marked: moving that parent's counter past the number on import would
// take billions of writes for nothing.
func SawSequential(name string, parentCversion int32) bool {
	n, ok := sequenceNumber(name)
	return ok && n < int64(parentCversion)
}

// Extended ephemeralOwner encodings (ZooKeeper's EphemeralType).
const (
	containerOwner int64 = math.MinInt64
	extendedMask   int64 = -0x0100000000000000 // 0xFF00000000000000
	featureMask    int64 = 0x00ffff0000000000
	maxTTL         int64 = 1<<40 - 1
)

// modeOf classifies a node by its ephemeralOwner as ZooKeeper does with
// extended types enabled (TTL nodes exist only then; a server without
// them never hands out a session id with a top byte of 0xFF). Servers
// hide the container and TTL encodings from clients today, but a Stat
// that carries them is classified right.
func modeOf(owner int64) (mode string, ttl int64) {
	switch {
	case owner == 0:
		return ModePersistent, 0
	case owner == containerOwner:
		return ModeContainer, 0
	case owner&extendedMask == extendedMask && owner&featureMask == 0:
		return ModeTTL, owner & maxTTL
	}
	return ModeEphemeral, 0
}

func fromZK(acl []zk.ACL) []ACL {
	out := make([]ACL, len(acl))
	for i, a := range acl {
		out[i] = ACL{Perms: a.Perms, Scheme: a.Scheme, ID: a.ID}
	}
	return out
}

func toZK(acl []ACL) []zk.ACL {
	out := make([]zk.ACL, len(acl))
	for i, a := range acl {
		out[i] = zk.ACL{Perms: a.Perms, Scheme: a.Scheme, ID: a.ID}
	}
	return out
}

// cleanPath checks an absolute znode path and drops a trailing slash.
func cleanPath(p string) (string, error) {
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "//") {
		return "", fmt.Errorf("treejson: bad path %q", p)
	}
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p, nil
}

// join appends a child's name to a path.
func join(parent, name string) string {
	if parent == "/" {
		return "/" + name
	}
	return parent + "/" + name
}
