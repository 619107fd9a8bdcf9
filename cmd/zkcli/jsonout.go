package main

import (
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"
)

// jsonStat is a znode's stat in --json output; times are milliseconds
// since the epoch, as on the wire.
type jsonStat struct {
	Czxid          int64 `json:"czxid"`
	Mzxid          int64 `json:"mzxid"`
	Pzxid          int64 `json:"pzxid"`
	Ctime          int64 `json:"ctime"`
	Mtime          int64 `json:"mtime"`
	Version        int32 `json:"version"`
	Cversion       int32 `json:"cversion"`
	Aversion       int32 `json:"aversion"`
	EphemeralOwner int64 `json:"ephemeralOwner"`
	DataLength     int32 `json:"dataLength"`
	NumChildren    int32 `json:"numChildren"`
}

func jsonStatOf(st *zk.Stat) *jsonStat {
	return &jsonStat{
		Czxid: st.Czxid, Mzxid: st.Mzxid, Pzxid: st.Pzxid, Ctime: st.Ctime, Mtime: st.Mtime,
		Version: st.Version, Cversion: st.Cversion, Aversion: st.Aversion,
		EphemeralOwner: st.EphemeralOwner, DataLength: st.DataLength, NumChildren: st.NumChildren,
	}
}

// jsonLs is ls --json: the sorted children and the node's stat.
type jsonLs struct {
	Path     string    `json:"path"`
	Children []string  `json:"children"`
	Stat     *jsonStat `json:"stat"`
}

// jsonTree is ls -R --json: the subtree's paths in ls -R's order.
type jsonTree struct {
	Path  string   `json:"path"`
	Paths []string `json:"paths"`
}

// jsonGet is get --json. Data is the node's data as a string, null when
// the node has none; data that is not UTF-8 is null there and given in
// DataBase64 instead.
type jsonGet struct {
	Path       string    `json:"path"`
	Data       *string   `json:"data"`
	DataBase64 string    `json:"dataBase64,omitempty"`
	Stat       *jsonStat `json:"stat"`
}

func jsonGetOf(path string, data []byte, st *zk.Stat) jsonGet {
	g := jsonGet{Path: path, Stat: jsonStatOf(st)}
	switch {
	case data == nil:
	case utf8.Valid(data):
		s := string(data)
		g.Data = &s
	default:
		g.DataBase64 = base64.StdEncoding.EncodeToString(data)
	}
	return g
}

// jsonStatOnly is stat --json.
type jsonStatOnly struct {
	Path string    `json:"path"`
	Stat *jsonStat `json:"stat"`
}

// printJSON writes v as one line of JSON.
func (c *client) printJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = c.out.Write(b)
	return err
}
