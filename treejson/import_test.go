package treejson

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// These tests import into memServer (fake_test.go); treejson_test.go
// runs the same code against zkraft and Apache ZooKeeper.

const openACL = `[{"perms":31,"scheme":"world","id":"anyone"}]`

// doc is an export of root holding nodes, each a line of JSON.
func doc(root string, nodes ...string) string {
	return `{"format":"zkraft-treejson","version":1,"root":"` + root + `","nodes":[` + "\n" + strings.Join(nodes, ",\n") + "\n]}\n"
}

// node is one node's line: extra is more fields (`"sequential":true`).
func node(path, data string, cversion int32, extra ...string) string {
	fields := []string{
		fmt.Sprintf(`"path":%q`, path),
		fmt.Sprintf(`"data":%q`, data), // base64
		`"acl":` + openACL,
		`"mode":"persistent"`,
		fmt.Sprintf(`"stat":{"cversion":%d}`, cversion),
	}
	return "{" + strings.Join(append(fields, extra...), ",") + "}"
}

func TestSawSequential(t *testing.T) {
	for _, c := range []struct {
		name     string
		cversion int32
		want     bool
	}{
		{"item-0000000002", 3, true},
		{"0000000000", 1, true},
		{"item-0000000003", 3, false}, // the counter never reached 3
		{"event-1732761234", 40, false},
		{"event-1732761234", 1732761235, true},
		{"x0000000001", 0, false},
		{"item-000000001", 5, false}, // nine digits
		{"b", 5, false},
		{"", 5, false},
		{"item-00000000a1", 500, false},
		{"item-9999999999", 1<<31 - 1, false},
	} {
		require.Equal(t, c.want, SawSequential(c.name, c.cversion), "%s under cversion %d", c.name, c.cversion)
	}
}

// A "sequential" flag on a name too short for a sequence number used to
// panic; it is ignored now.
func TestImportShortSequentialName(t *testing.T) {
	m := newMemServer()
	d := doc("/a", node("/a", "", 0), node("/a/b", "", 0, `"sequential":true`))
	st, err := importTree(m, strings.NewReader(d), ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, ImportStats{Created: 2}, st)
	require.Zero(t, m.multi)
}

// A name that only looks sequential (a Unix time) under a parent whose
// recorded cversion is below it is not counted, whatever the flag says
// (exports written before the rule flagged every such name); with no
// cversion recorded, the flag is trusted, and a counter that far behind
// is left with a warning instead of a billion writes.
func TestImportCounterBound(t *testing.T) {
	m := newMemServer()
	old := doc("/ts", node("/ts", "", 2), node("/ts/event-1732761234", "", 0, `"sequential":true`))
	st, err := importTree(m, strings.NewReader(old), ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, ImportStats{Created: 2}, st)
	require.Zero(t, m.multi)

	m = newMemServer()
	bare := doc("/ts", node("/ts", "", 0), node("/ts/event-1732761234", "", 0, `"sequential":true`))
	st, err = importTree(m, strings.NewReader(bare), ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, 2, st.Created)
	require.Zero(t, st.Sequencers)
	require.Len(t, st.Warnings, 1)
	require.Contains(t, st.Warnings[0], "the sequence counter of /ts is at 1")
	require.Contains(t, st.Warnings[0], "left as it is")
	require.Zero(t, m.multi, "no step spent on a counter past the bound")
	ok, _, _ := m.Exists("/ts/event-1732761234")
	require.True(t, ok, "the node is created under its name all the same")

	// Within the bound, the counter is moved past the number.
	m = newMemServer()
	q := doc("/q", node("/q", "", 0), node("/q/item-0000050000", "", 0, `"sequential":true`))
	st, err = importTree(m, strings.NewReader(q), ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, 1, st.Sequencers)
	require.Empty(t, st.Warnings)
	require.Greater(t, m.cversion("/q"), int32(50000))
	require.LessOrEqual(t, m.cversion("/q"), int32(50002))
}

// An interrupted import is resumed by running it again: nodes in place
// with the export's data and ACL are counted as unchanged; one with other
// data stops the import unless Overwrite is asked for.
func TestImportResumes(t *testing.T) {
	var nodes []string
	nodes = append(nodes, node("/app", "cm9vdA==", 0))
	for i := range 50 {
		nodes = append(nodes, node(fmt.Sprintf("/app/n%02d", i), "ZGF0YQ==", 0))
	}
	full := doc("/app", nodes...)
	m := newMemServer()
	st, err := importTree(m, strings.NewReader(doc("/app", nodes[:20]...)), ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, 20, st.Created)
	// A truncated file stops an import part way (how far depends on the
	// creates in flight when the decoder fails).
	_, err = importTree(m, strings.NewReader(full[:len(full)*3/4]), ImportOptions{Parallel: 4})
	require.ErrorIs(t, err, ErrFormat)
	before := len(m.nodes) - 1

	st, err = importTree(m, strings.NewReader(full), ImportOptions{Parallel: 4})
	require.NoError(t, err)
	require.Equal(t, ImportStats{Created: 51 - before, Unchanged: before}, st)

	st, err = importTree(m, strings.NewReader(full), ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, ImportStats{Unchanged: 51}, st)

	_, err = m.Set("/app/n07", []byte("changed"), -1)
	require.NoError(t, err)
	_, err = importTree(m, strings.NewReader(full), ImportOptions{})
	require.ErrorIs(t, err, ErrExists)
	require.ErrorContains(t, err, "/app/n07, with other data (7 bytes, not 4) than the export's; refusing to change it (ask for overwrite")
	_, err = m.SetACL("/app/n08", zk.WorldACL(zk.PermRead), -1)
	require.NoError(t, err)
	st, err = importTree(m, strings.NewReader(full), ImportOptions{Overwrite: true})
	require.NoError(t, err)
	require.Equal(t, ImportStats{Updated: 2, Unchanged: 49}, st)
	data, _, _ := m.Get("/app/n07")
	require.Equal(t, []byte("data"), data)

	// An ephemeral in the way is not the persistent node the export has.
	m.nodes["/app/n09"].owner = 0x1234
	_, err = importTree(m, strings.NewReader(full), ImportOptions{})
	require.ErrorContains(t, err, "an ephemeral owner (session 0x1234)")
}

// Progress is called as the import runs and once at the end, with every
// node done and the whole document read.
func TestImportProgress(t *testing.T) {
	var nodes []string
	nodes = append(nodes, node("/p", "", 0))
	for i := range 20 {
		nodes = append(nodes, node(fmt.Sprintf("/p/c%02d", i), "", 0))
	}
	d := doc("/p", nodes...)
	var calls []ImportProgress
	opts := ImportOptions{ProgressEvery: time.Millisecond, Progress: func(p ImportProgress) { calls = append(calls, p) }}
	_, err := importTree(newMemServer(), strings.NewReader(d), opts)
	require.NoError(t, err)
	require.NotEmpty(t, calls)
	last := calls[len(calls)-1]
	require.True(t, last.Done)
	require.Equal(t, 21, last.Nodes)
	require.Greater(t, last.Read, int64(len(d)-10))
	for _, c := range calls[:len(calls)-1] {
		require.False(t, c.Done)
	}

	var out bytes.Buffer
	show := TerminalProgress(&out, 1000)
	show(ImportProgress{Nodes: 5, Read: 500})
	show(ImportProgress{Nodes: 21, Read: 1000, Counter: "/q", CounterSteps: 1000, Done: true})
	require.Equal(t, "\rimported 5 nodes (50% of the file)"+
		"\rimported 21 nodes (100% of the file); moving the sequence counter of /q: 1000 of at most 100000 steps\n", out.String())
}

// FuzzImportTree: Import takes any document without a panic or a hang,
// and spends at most MaxCounterSteps on each sequence counter.
func FuzzImportTree(f *testing.F) {
	f.Add(doc("/a", node("/a", "", 0), node("/a/b", "", 0, `"sequential":true`)))
	f.Add(doc("/ts", node("/ts", "", 0), node("/ts/event-1732761234", "", 0, `"sequential":true`)))
	f.Add(doc("/src",
		`{"path":"/src","data":"cm9vdA==","acl":`+openACL+`,"mode":"persistent","stat":{"czxid":2,"mzxid":2,"ctime":1,"mtime":1,"version":0,"cversion":4,"aversion":0,"num_children":3}}`,
		`{"path":"/src/box","data":null,"acl":`+openACL+`,"mode":"container","stat":{"czxid":3,"mzxid":3,"ctime":1,"mtime":1,"version":0,"cversion":0,"aversion":0,"num_children":0}}`,
		`{"path":"/src/eph","data":"ZQ==","acl":`+openACL+`,"mode":"ephemeral","stat":{"czxid":4,"mzxid":4,"ctime":1,"mtime":1,"version":0,"cversion":0,"aversion":0,"ephemeral_owner":72057594037927937,"num_children":0}}`,
		`{"path":"/src/q","data":null,"acl":[{"perms":1,"scheme":"digest","id":"u:x"}],"mode":"persistent","stat":{"cversion":3,"num_children":2}}`,
		`{"path":"/src/q/item-0000000000","data":"AA==","acl":`+openACL+`,"mode":"persistent","sequential":true,"stat":{}}`,
		`{"path":"/src/q/item-0000000002","data":"Ag==","acl":`+openACL+`,"mode":"persistent","sequential":true,"stat":{}}`,
		`{"path":"/src/ttl","data":"eA==","acl":`+openACL+`,"mode":"ttl","ttl_ms":3600000,"stat":{}}`))
	f.Add(doc("/", node("/", "", 0), node("/x", "", 0), node("/x/y", "", 0)))
	f.Add(`{"format":"zkraft-treejson","version":1,"root":"/a","nodes":[{"path":"/a/b"}]}`)
	f.Add(`{"format":"zkraft-treejson","version":1,"root":"/a","nodes":[{"path":"/a"},{"path":"/a"}`)
	f.Fuzz(func(t *testing.T, d string) {
		m := newMemServer()
		st, _ := importTree(m, strings.NewReader(d), ImportOptions{Parallel: 3, Ephemerals: EphemeralsPersistent})
		perCounter := MaxCounterSteps/(2*bumpBatch) + 1
		if m.multi > perCounter*max(st.Sequencers, 1) {
			t.Fatalf("%d multis for %d counters", m.multi, st.Sequencers)
		}
	})
}
