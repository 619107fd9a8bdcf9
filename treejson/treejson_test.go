package treejson_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkraft/zkraft/integration"
	"github.com/zkraft/zkraft/internal/realzk"
	"github.com/zkraft/zkraft/server"
	"github.com/zkraft/zkraft/treejson"
)

type quiet struct{}

func (quiet) Printf(string, ...interface{}) {}

// dial connects as the super user ("super:test", realzk.SuperDigest).
func dial(t *testing.T, addr string) *zk.Conn {
	t.Helper()
	conn, ev, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(quiet{}))
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	for conn.State() != zk.StateHasSession {
		select {
		case <-ev:
		case <-time.After(20 * time.Second):
			t.Fatal("no session")
		}
	}
	require.NoError(t, conn.AddAuth("digest", []byte("super:test")))
	return conn
}

func startZkraft(t *testing.T) string {
	s := integration.StartServer(t, integration.WithConfig(func(c *server.Config) {
		c.ExtendedTypesEnabled = true
		c.SuperDigest = realzk.SuperDigest
	}))
	return s.Addr()
}

func startRealZK(t *testing.T) string {
	if ok, reason := realzk.Available(); !ok {
		t.Skip(reason)
	}
	srv, err := realzk.Start(t.TempDir(), realzk.Options{SystemProps: map[string]string{"zookeeper.extendedTypesEnabled": "true"}})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Stop() })
	return srv.Addr()
}

// allBytes is data with every byte value.
func allBytes() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// buildSource creates the tree every test exports.
func buildSource(t *testing.T, conn *zk.Conn, root string) {
	t.Helper()
	open := zk.WorldACL(zk.PermAll)
	mk := func(p string, data []byte, acl []zk.ACL) {
		_, err := conn.Create(p, data, 0, acl)
		require.NoError(t, err, p)
	}
	mk(root, []byte("root"), open)
	mk(root+"/bin", allBytes(), open)
	mk(root+"/empty", nil, open)
	mk(root+"/secret", []byte("s"), append(zk.DigestACL(zk.PermAll, "u", "p"), zk.ACL{Perms: zk.PermRead, Scheme: "ip", ID: "10.0.0.0/8"}))
	mk(root+"/secret/inner", []byte("i"), zk.DigestACL(zk.PermRead, "u", "p"))
	mk(root+"/q", nil, open)
	for i := 0; i < 3; i++ {
		_, err := conn.Create(root+"/q/item-", []byte{byte(i)}, zk.FlagSequence, open)
		require.NoError(t, err)
	}
	require.NoError(t, conn.Delete(root+"/q/item-0000000001", -1)) // a gap in the numbers
	_, err := conn.CreateContainer(root+"/box", nil, zk.FlagContainer, open)
	require.NoError(t, err)
	mk(root+"/box/thing", []byte("t"), open)
	_, err = conn.CreateTTL(root+"/ttl", []byte("x"), zk.FlagTTL, open, time.Hour)
	require.NoError(t, err)
	_, err = conn.Create(root+"/eph", []byte("e"), zk.FlagEphemeral, open)
	require.NoError(t, err)
}

// describe lists a subtree relative to root: data, ACL and kind.
func describe(t *testing.T, conn *zk.Conn, root string) []string {
	t.Helper()
	var out []string
	var walk func(p string)
	walk = func(p string) {
		data, st, err := conn.Get(p)
		require.NoError(t, err)
		acl, _, err := conn.GetACL(p)
		require.NoError(t, err)
		kind := "persistent"
		switch owner := st.EphemeralOwner; {
		case owner == -1<<63:
			kind = "container"
		case uint64(owner)>>56 == 0xff:
			kind = fmt.Sprintf("ttl=%d", owner&(1<<40-1))
		case owner != 0:
			kind = "ephemeral"
		}
		out = append(out, fmt.Sprintf("%s %x %v %s", strings.TrimPrefix(p, root), data, acl, kind))
		kids, _, err := conn.Children(p)
		require.NoError(t, err)
		for _, k := range sortStrings(kids) {
			walk(p + "/" + k)
		}
	}
	walk(root)
	return out
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

func withoutEphemerals(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.HasSuffix(l, " ephemeral") {
			out = append(out, l)
		}
	}
	return out
}

// roundTrip exports /src from one server and imports it as /dst on another
// (or the same), then checks what a tree move must keep.
func roundTrip(t *testing.T, srcAddr, dstAddr string) {
	src, dst := dial(t, srcAddr), dial(t, dstAddr)
	buildSource(t, src, "/src")
	var buf bytes.Buffer
	stats, err := treejson.Export(src, "/src", &buf, treejson.ExportOptions{Parallel: 4})
	require.NoError(t, err)
	require.Equal(t, 12, stats.Nodes)
	require.Equal(t, 1, stats.Ephemerals)
	require.True(t, json.Valid(buf.Bytes()), "an export is one JSON document")
	// Servers show clients an ephemeralOwner of 0 for containers and TTL
	// nodes, so an export over the client protocol sees them as
	// persistent; an export marked by hand brings them over as they were.
	require.Contains(t, buf.String(), `{"path":"/src/box","data":null,"acl":[{"perms":31,"scheme":"world","id":"anyone"}],"mode":"persistent"`)
	exported := setModes(t, buf.Bytes(), map[string]treejson.Node{
		"/src/box": {Mode: treejson.ModeContainer},
		"/src/ttl": {Mode: treejson.ModeTTL, TTLMillis: 3_600_000},
	})
	ist, err := treejson.Import(dst, bytes.NewReader(exported), treejson.ImportOptions{To: "/dst", Parallel: 4})
	require.NoError(t, err)
	require.Equal(t, treejson.ImportStats{Created: 11, Skipped: 1, Sequencers: 1}, ist)
	require.Equal(t, withoutEphemerals(describe(t, src, "/src")), describe(t, dst, "/dst"))

	// A sequential create after the import sorts after the imported items.
	name, err := dst.Create("/dst/q/item-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	require.Greater(t, name, "/dst/q/item-0000000002")

	// Importing again finds every node as exported (a resumed import)
	// and changes nothing.
	before := describe(t, dst, "/dst")
	ist, err = treejson.Import(dst, bytes.NewReader(exported), treejson.ImportOptions{To: "/dst"})
	require.NoError(t, err)
	require.Equal(t, treejson.ImportStats{Unchanged: 11, Skipped: 1}, ist)
	require.Equal(t, before, describe(t, dst, "/dst"))

	// A node with other data is refused; with overwrite its data and ACL
	// are set back, and nothing is deleted.
	_, err = dst.Set("/dst/bin", []byte("changed"), -1)
	require.NoError(t, err)
	_, err = treejson.Import(dst, bytes.NewReader(exported), treejson.ImportOptions{To: "/dst"})
	require.ErrorIs(t, err, treejson.ErrExists)
	require.ErrorContains(t, err, "/dst/bin, with other data (7 bytes, not 256) than the export's")
	ist, err = treejson.Import(dst, bytes.NewReader(exported), treejson.ImportOptions{To: "/dst", Overwrite: true})
	require.NoError(t, err)
	require.Equal(t, treejson.ImportStats{Updated: 1, Unchanged: 10, Skipped: 1}, ist)
	require.Equal(t, before, describe(t, dst, "/dst"))

	// Ephemerals can come over as persistent nodes.
	ist, err = treejson.Import(dst, bytes.NewReader(exported), treejson.ImportOptions{To: "/dst2", Ephemerals: treejson.EphemeralsPersistent})
	require.NoError(t, err)
	require.Equal(t, 12, ist.Created)
	data, st, err := dst.Get("/dst2/eph")
	require.NoError(t, err)
	require.Equal(t, []byte("e"), data)
	require.Zero(t, st.EphemeralOwner)

	// A truncated export is refused.
	_, err = treejson.Import(dst, bytes.NewReader(exported[:len(exported)-5]), treejson.ImportOptions{To: "/dst3"})
	require.ErrorIs(t, err, treejson.ErrFormat)
}

// setModes rewrites the mode of the given nodes in an export.
func setModes(t *testing.T, doc []byte, modes map[string]treejson.Node) []byte {
	t.Helper()
	lines := bytes.Split(doc, []byte("\n"))
	for i, l := range lines {
		l = bytes.TrimSuffix(l, []byte(","))
		var n treejson.Node
		if json.Unmarshal(l, &n) != nil || n.Path == "" {
			continue
		}
		if m, ok := modes[n.Path]; ok {
			n.Mode, n.TTLMillis = m.Mode, m.TTLMillis
			b, err := json.Marshal(n)
			require.NoError(t, err)
			if bytes.HasSuffix(lines[i], []byte(",")) {
				b = append(b, ',')
			}
			lines[i] = b
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

func TestRoundTripZkraft(t *testing.T) {
	addr := startZkraft(t)
	roundTrip(t, addr, addr)
}

func TestRoundTripApacheZooKeeper(t *testing.T) {
	addr := startRealZK(t)
	roundTrip(t, addr, addr)
}

func TestFromApacheZooKeeperToZkraft(t *testing.T) {
	roundTrip(t, startRealZK(t), startZkraft(t))
}

func TestImportRefusesAMissingParentAndOtherDocuments(t *testing.T) {
	conn := dial(t, startZkraft(t))
	doc := `{"format":"zkraft-treejson","version":1,"root":"/a","nodes":[` + "\n" +
		`{"path":"/a","data":null,"acl":[{"perms":31,"scheme":"world","id":"anyone"}],"mode":"persistent","stat":{}}]}`
	_, err := treejson.Import(conn, strings.NewReader(doc), treejson.ImportOptions{To: "/missing/a"})
	require.ErrorContains(t, err, "does not exist")
	_, err = treejson.Import(conn, strings.NewReader(`{"format":"other","version":1,"root":"/","nodes":[]}`), treejson.ImportOptions{})
	require.ErrorIs(t, err, treejson.ErrFormat)
	_, err = treejson.Import(conn, strings.NewReader(doc), treejson.ImportOptions{})
	require.NoError(t, err)
	ok, _, err := conn.Exists("/a")
	require.NoError(t, err)
	require.True(t, ok)
}

// Export marks a node sequential only when its number is below the
// parent's cversion: a plain node named after a Unix time is not, and its
// import moves no counter.
func TestExportMarksWhatTheCounterCovered(t *testing.T) {
	conn := dial(t, startZkraft(t))
	open := zk.WorldACL(zk.PermAll)
	for _, p := range []string{"/m", "/m/ts", "/m/ts/event-1732761234", "/m/q"} {
		_, err := conn.Create(p, nil, 0, open)
		require.NoError(t, err)
	}
	for range 3 {
		_, err := conn.Create("/m/q/item-", nil, zk.FlagSequence, open)
		require.NoError(t, err)
	}
	var buf bytes.Buffer
	_, err := treejson.Export(conn, "/m", &buf, treejson.ExportOptions{})
	require.NoError(t, err)
	flags := map[string]bool{}
	for _, l := range strings.Split(buf.String(), "\n") {
		var n treejson.Node
		if json.Unmarshal([]byte(strings.TrimSuffix(l, ",")), &n) == nil && n.Path != "" {
			flags[n.Path] = n.Sequential
		}
	}
	require.Equal(t, map[string]bool{"/m": false, "/m/ts": false, "/m/ts/event-1732761234": false, "/m/q": false,
		"/m/q/item-0000000000": true, "/m/q/item-0000000001": true, "/m/q/item-0000000002": true}, flags)

	ist, err := treejson.Import(conn, bytes.NewReader(buf.Bytes()), treejson.ImportOptions{To: "/copy"})
	require.NoError(t, err)
	require.Equal(t, treejson.ImportStats{Created: 7}, ist, "creating the items moved /copy/q's counter far enough")
	_, st, err := conn.Exists("/copy/ts")
	require.NoError(t, err)
	require.Equal(t, int32(1), st.Cversion, "no counter moved for the timestamp")
	name, err := conn.Create("/copy/q/item-", nil, zk.FlagSequence, open)
	require.NoError(t, err)
	require.Equal(t, "/copy/q/item-0000000003", name)
}
