package console

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/wire"
)

// Paths of the tree browser's read-only API.
const (
	// ZnodePath answers one node: ?path=/x.
	ZnodePath = Prefix + "api/znode"
	// ChildrenPath answers a node's child names: ?path=/x.
	ChildrenPath = Prefix + "api/children"
	// SearchPath answers the paths starting with a prefix: ?prefix=/x&limit=n.
	SearchPath = Prefix + "api/search"
	// SessionsPath answers the sessions table.
	SessionsPath = Prefix + "api/sessions"
)

// Bounds on what one answer carries.
const (
	// MaxData is how many bytes of a node's data an answer holds; the rest
	// is cut and the answer says so.
	MaxData = 64 << 10
	// maxChildrenInZnode is how many child names a znode answer lists.
	maxChildrenInZnode = 1000
	// MaxChildren is how many names a children answer lists.
	MaxChildren = 10000
	// DefaultSearchLimit and MaxSearchLimit bound a search's results.
	DefaultSearchLimit = 100
	MaxSearchLimit     = 1000
)

// ErrBadLimit is answered for a limit that is not a positive number.
var ErrBadLimit = errors.New("console: limit must be a positive integer")

// znodeJSON is a node as the page reads it: data as base64 (the page shows
// it as text, JSON or hex), zxids and the owner in hex as ZooKeeper's
// tools print them.
type znodeJSON struct {
	Path      string    `json:"path"`
	Data      []byte    `json:"data"`
	Null      bool      `json:"null"`
	Truncated bool      `json:"truncated"`
	DataLimit int       `json:"dataLimit"`
	Stat      statJSON  `json:"stat"`
	ACL       []aclJSON `json:"acl"`
	Children  []string  `json:"children"`
	// ChildrenTruncated says Children lists only the first names.
	ChildrenTruncated bool `json:"childrenTruncated"`
	// Hidden says the node's ACL lets the caller read neither its data
	// nor its children (send an Authorization header to read as a user).
	Hidden bool `json:"hidden"`
}

type statJSON struct {
	Czxid          string    `json:"czxid"`
	Mzxid          string    `json:"mzxid"`
	Pzxid          string    `json:"pzxid"`
	Ctime          time.Time `json:"ctime"`
	Mtime          time.Time `json:"mtime"`
	Version        int32     `json:"version"`
	Cversion       int32     `json:"cversion"`
	Aversion       int32     `json:"aversion"`
	EphemeralOwner string    `json:"ephemeralOwner"`
	DataLength     int32     `json:"dataLength"`
	NumChildren    int32     `json:"numChildren"`
}

type aclJSON struct {
	Perms  string `json:"perms"` // "cdrwa" letters, as zkCli prints them
	Scheme string `json:"scheme"`
	ID     string `json:"id"`
}

func hex(v int64) string { return fmt.Sprintf("0x%x", v) }

func statOf(s wire.Stat) statJSON {
	return statJSON{
		Czxid: hex(s.Czxid), Mzxid: hex(s.Mzxid), Pzxid: hex(s.Pzxid),
		Ctime: time.UnixMilli(s.Ctime).UTC(), Mtime: time.UnixMilli(s.Mtime).UTC(),
		Version: s.Version, Cversion: s.Cversion, Aversion: s.Aversion,
		EphemeralOwner: hex(s.EphemeralOwner), DataLength: s.DataLength, NumChildren: s.NumChildren,
	}
}

// perms spells an ACL's permission bits as zkCli's getAcl does.
func perms(p int32) string {
	var b []byte
	for _, f := range []struct {
		bit    int32
		letter byte
	}{{wire.PermCreate, 'c'}, {wire.PermDelete, 'd'}, {wire.PermRead, 'r'}, {wire.PermWrite, 'w'}, {wire.PermAdmin, 'a'}} {
		if p&f.bit != 0 {
			b = append(b, f.letter)
		}
	}
	return string(b)
}

func znodeOf(v server.ZnodeView) znodeJSON {
	acl := make([]aclJSON, 0, len(v.ACL))
	for _, a := range v.ACL {
		acl = append(acl, aclJSON{Perms: perms(a.Perms), Scheme: a.ID.Scheme, ID: a.ID.ID})
	}
	if v.Children == nil {
		v.Children = []string{}
	}
	return znodeJSON{
		Path: v.Path, Data: v.Data, Null: v.Null, Truncated: v.DataTruncated, DataLimit: MaxData,
		Stat: statOf(v.Stat), ACL: acl, Children: v.Children, ChildrenTruncated: v.ChildrenTruncated, Hidden: v.Hidden,
	}
}

// znode answers ZnodePath.
func (c *Console) znode(w http.ResponseWriter, r *http.Request) {
	v, err := c.view.Znode(credentials(r), r.URL.Query().Get("path"), MaxData, maxChildrenInZnode)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, znodeOf(v))
}

// children answers ChildrenPath.
func (c *Console) children(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Query().Get("path")
	v, err := c.view.Znode(credentials(r), p, 0, MaxChildren)
	if err != nil {
		writeError(w, err)
		return
	}
	if v.Children == nil {
		v.Children = []string{}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"path": p, "children": v.Children, "truncated": v.ChildrenTruncated, "numChildren": v.Stat.NumChildren,
		"hidden": v.Hidden,
	})
}

// search answers SearchPath.
func (c *Console) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := DefaultSearchLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			writeError(w, ErrBadLimit)
			return
		}
		limit = min(n, MaxSearchLimit)
	}
	prefix := q.Get("prefix")
	paths, more, err := c.view.SearchPaths(credentials(r), prefix, limit)
	if err != nil {
		writeError(w, err)
		return
	}
	if paths == nil {
		paths = []string{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"prefix": prefix, "limit": limit, "paths": paths, "truncated": more})
}

// sessionJSON is one row of the sessions table.
type sessionJSON struct {
	ID         string     `json:"id"` // hex, as the four-letter words print it
	Timeout    int32      `json:"timeoutMs"`
	ExpiresAt  *time.Time `json:"expiresAt"` // null on a server that does not lead
	Local      bool       `json:"local"`
	Ephemerals []string   `json:"ephemerals"`
	Watches    []string   `json:"watches"`
}

// sessions answers SessionsPath.
func (c *Console) sessions(w http.ResponseWriter, r *http.Request) {
	rows, err := c.view.SessionTable(credentials(r))
	if err != nil {
		writeError(w, err)
		return
	}
	out := make([]sessionJSON, 0, len(rows))
	for _, s := range rows {
		row := sessionJSON{ID: hex(s.ID), Timeout: s.Timeout, Local: s.Local, Ephemerals: s.Ephemerals, Watches: s.Watches}
		if s.ExpiresAt != 0 {
			at := time.UnixMilli(s.ExpiresAt).UTC()
			row.ExpiresAt = &at
		}
		if row.Ephemerals == nil {
			row.Ephemerals = []string{}
		}
		if row.Watches == nil {
			row.Watches = []string{}
		}
		out = append(out, row)
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": out})
}
