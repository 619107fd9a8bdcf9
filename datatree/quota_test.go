package datatree

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zkraft/zkraft/wire"
)

// setQuota does what zkCli's setquota does once its checks pass: create the
// missing nodes of /zookeeper/quota+path with null data, then the limits
// node and the stats node ("count=0,bytes=0").
func (e *env) setQuota(path, limits string) {
	e.t.Helper()
	p := quotaPath
	for _, seg := range strings.Split(path, "/")[1:] {
		p += "/" + seg
		if !e.tr.Exists(p) {
			r := e.apply(wire.OpCreate, &wire.CreateRequest{Path: p, ACL: wire.OpenACLUnsafe})
			require.NoError(e.t, r.Err, "create %s", p)
		}
	}
	e.createData(p+"/"+quotaLimitsName, limits)
	e.createData(p+"/"+quotaStatsName, "count=0,bytes=0")
}

func (e *env) createData(path, data string) {
	e.t.Helper()
	r := e.apply(wire.OpCreate, &wire.CreateRequest{Path: path, Data: []byte(data), ACL: wire.OpenACLUnsafe})
	require.NoError(e.t, r.Err, "create %s", path)
}

// stats returns the data of path's stats node.
func (e *env) stats(path string) string {
	e.t.Helper()
	data, _, err := e.tr.GetData(quotaPath + path + "/" + quotaStatsName)
	require.NoError(e.t, err)
	return string(data)
}

// requireDataSize checks ApproximateDataSize against a full recount.
func requireDataSize(t *testing.T, tr *Tree) {
	t.Helper()
	var sum int64
	tr.Walk(func(p string, st wire.Stat) { sum += javaLen(p) + int64(st.DataLength) })
	require.Equal(t, sum, tr.ApproximateDataSize())
}

func TestStatsTrackFormat(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{"count=0,bytes=0", "count=0,bytes=0"},
		{"", "count=-1,bytes=-1"},
		{"bytes=5;count=7", "count=7,bytes=5"},
		{"count=2,bytes=-1=;byteHardLimit=-1;countHardLimit=-1", "count=2,bytes=-1=;byteHardLimit=-1;countHardLimit=-1"},
		{"countHardLimit=3,count=1,,;;bytes=2,", "count=1,bytes=2=;countHardLimit=3"},
		{"count=,bytes=1", ""},                   // "count=" has no value part: Java throws
		{"count==4,bytes=1", "count=-1,bytes=1"}, // {"count", "", "4"}: empty value is -1
		{"count=1=2,bytes=+3", "count=1,bytes=3"},
		{"count=1,count=9", "count=9,bytes=-1"},
		{" bytes=1,count=1", "count=1,bytes=-1=; bytes=1"},
		{",count=1", ""}, // leading empty pair
		{"count", ""},
		{"count=x", ""},
		{"count=9223372036854775808", ""},
		{",,;", "count=-1,bytes=-1"},
		{"=5,z=1,Z=2", "count=-1,bytes=-1=;=5;Z=2;z=1"},
	} {
		st, ok := parseStatsTrack([]byte(tc.in))
		if tc.out == "" {
			require.False(t, ok, "%q", tc.in)
			continue
		}
		require.True(t, ok, "%q", tc.in)
		require.Equal(t, tc.out, st.String(), "%q", tc.in)
	}
	_, ok := parseStatsTrack(nil)
	require.False(t, ok)
	// Keys sort by UTF-16 code units, as Java's String.compareTo.
	st := statsTrack{"\uff61": 1, "\U0001F600": 2, statsCount: 0, statsBytes: 0}
	require.Equal(t, "count=0,bytes=0=;\U0001F600=2;\uff61=1", st.String())
}

func TestJavaSplit(t *testing.T) {
	require.Equal(t, []string{""}, javaSplit("", isPairSeparator, true))
	require.Equal(t, []string{"a"}, javaSplit("a", isPairSeparator, true))
	require.Equal(t, []string{"", "a", "b"}, javaSplit(",a,;b,,", isPairSeparator, true))
	require.Empty(t, javaSplit(",;", isPairSeparator, true))
	require.Equal(t, []string{"a", "", "b"}, javaSplit("a==b==", isKeyValueSeparator, false))
	require.Empty(t, javaSplit("=", isKeyValueSeparator, false))
}

func TestQuotaCreateDeleteSetData(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/q", 0) // data "x"
	e.setQuota("/q", "count=2,bytes=-1=;byteHardLimit=-1;countHardLimit=-1")
	require.Equal(t, "count=1,bytes=1", e.stats("/q"))
	for _, c := range []string{"/q/a", "/q/b", "/q/c"} {
		e.mustCreate(c, 0)
	}
	require.Equal(t, "count=4,bytes=4", e.stats("/q"))

	statsPath := quotaPath + "/q/" + quotaStatsName
	before := e.stat(statsPath)
	r := e.setData("/q", []byte("01234567890123456789"), -1)
	require.NoError(t, r.Err)
	require.Equal(t, "count=4,bytes=23", e.stats("/q"))
	after := e.stat(statsPath)
	require.Equal(t, int32(len("count=4,bytes=23")), after.DataLength)
	before.DataLength = after.DataLength
	require.Equal(t, before, after, "only the data of the stats node changes")
	require.Equal(t, []Event{{Type: wire.EventNodeDataChanged, Path: "/q"}}, withoutACL(r.Events),
		"no event for the stats node")

	e.mustCreate("/q/a/deep", 0)
	require.Equal(t, "count=5,bytes=24", e.stats("/q"))
	require.NoError(t, e.del("/q/a/deep", -1).Err)
	require.NoError(t, e.del("/q/b", -1).Err)
	require.Equal(t, "count=3,bytes=22", e.stats("/q"))
	require.NoError(t, e.setData("/q/c", nil, -1).Err)
	require.Equal(t, "count=3,bytes=21", e.stats("/q"))

	// Nodes outside the quota and prefixes that are not components.
	e.mustCreate("/qq", 0)
	e.mustCreate("/other", 0)
	require.Equal(t, "count=3,bytes=21", e.stats("/q"))

	// Ephemerals removed by closeSession count too.
	e.mustCreate("/q/e", wire.FlagEphemeral)
	require.Equal(t, "count=4,bytes=22", e.stats("/q"))
	e.tr.KillSession(e.session, 1000)
	require.Equal(t, "count=3,bytes=21", e.stats("/q"))

	// Deleting the quota root itself is accounted like any node under it.
	for _, c := range []string{"/q/a", "/q/c", "/q"} {
		require.NoError(t, e.del(c, -1).Err)
	}
	require.Equal(t, "count=0,bytes=0", e.stats("/q"))
	requireDataSize(t, e.tr)
}

func TestQuotaKeepsExtraKeys(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/q", 0)
	e.setQuota("/q", "count=-1,bytes=10")
	// Some other writer replaces the stats with extra keys.
	require.NoError(t, e.setData(quotaPath+"/q/"+quotaStatsName, []byte("byteHardLimit=7;bytes=1,count=1,zz=3"), -1).Err)
	e.mustCreate("/q/c", 0)
	require.Equal(t, "count=2,bytes=2=;byteHardLimit=7;zz=3", e.stats("/q"))
	// Stats ZooKeeper cannot parse stay as they are.
	require.NoError(t, e.setData(quotaPath+"/q/"+quotaStatsName, []byte("count=oops"), -1).Err)
	e.mustCreate("/q/d", 0)
	require.Equal(t, "count=oops", e.stats("/q"))
	require.NoError(t, e.setData(quotaPath+"/q/"+quotaStatsName, []byte(""), -1).Err)
	e.mustCreate("/q/e", 0)
	require.Equal(t, "count=0,bytes=0", e.stats("/q"), "missing keys count as -1")
	requireDataSize(t, e.tr)
}

func TestQuotaNestedLongestPrefixWins(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/a", 0)
	e.mustCreate("/a/b", 0)
	e.mustCreate("/a/b/c", 0)
	e.setQuota("/a", "count=10,bytes=-1")
	require.Equal(t, "count=3,bytes=3", e.stats("/a"))
	e.setQuota("/a/b", "count=10,bytes=-1")
	require.Equal(t, "count=2,bytes=2", e.stats("/a/b"))

	e.mustCreate("/a/b/c/d", 0)
	e.mustCreate("/a/b/e", 0)
	require.Equal(t, "count=3,bytes=3", e.stats("/a"))
	require.Equal(t, "count=4,bytes=4", e.stats("/a/b"))
	e.mustCreate("/a/x", 0)
	require.Equal(t, "count=4,bytes=4", e.stats("/a"))

	// The inner stats node missing: the inner quota still wins, so
	// nothing is counted anywhere.
	require.NoError(t, e.del(quotaPath+"/a/b/"+quotaStatsName, -1).Err)
	e.mustCreate("/a/b/f", 0)
	require.Equal(t, "count=4,bytes=4", e.stats("/a"))

	// Without its limits node the inner path falls back to the outer quota.
	require.NoError(t, e.del(quotaPath+"/a/b/"+quotaLimitsName, -1).Err)
	e.mustCreate("/a/b/g", 0)
	require.Equal(t, "count=5,bytes=5", e.stats("/a"))
	requireDataSize(t, e.tr)
}

func TestQuotaOnMissingPath(t *testing.T) {
	e := newEnv(t, Config{})
	e.setQuota("/n/m", "count=2,bytes=-1")
	require.Equal(t, "count=0,bytes=0", e.stats("/n/m"))
	e.mustCreate("/n", 0)
	require.Equal(t, "count=0,bytes=0", e.stats("/n/m"))
	e.createData("/n/m", "abc")
	e.mustCreate("/n/m/c", 0)
	require.Equal(t, "count=2,bytes=4", e.stats("/n/m"))
}

func TestQuotaStatsRecomputedOnCreate(t *testing.T) {
	e := newEnv(t, Config{})
	e.createData("/s", "12345")
	e.createData("/s/a", "")
	e.apply(wire.OpCreate, &wire.CreateRequest{Path: "/s/b", ACL: wire.OpenACLUnsafe}) // null data
	e.createData("/s/a/x", "xy")

	// The stats node alone (no limits node yet) is recomputed whatever its
	// data; with no limits node nothing is accounted afterwards.
	e.mustCreate(quotaPath+"/s", 0)
	e.createData(quotaPath+"/s/"+quotaStatsName, "garbage")
	require.Equal(t, "count=4,bytes=7", e.stats("/s"))
	e.mustCreate("/s/c", 0)
	require.Equal(t, "count=4,bytes=7", e.stats("/s"))

	// Recreating it recomputes it (the limits node exists now).
	e.createData(quotaPath+"/s/"+quotaLimitsName, "count=1,bytes=1")
	require.NoError(t, e.del(quotaPath+"/s/"+quotaStatsName, -1).Err)
	e.createData(quotaPath+"/s/"+quotaStatsName, "")
	require.Equal(t, "count=5,bytes=8", e.stats("/s"))

	// A stats node directly under /zookeeper/quota gets the counts of the
	// whole tree ("" is the root in ZooKeeper's node map), and "/" never
	// has a quota.
	e.createData(quotaPath+"/"+quotaLimitsName, "count=1")
	e.createData(quotaPath+"/"+quotaStatsName, "")
	var count, bytes int64
	e.tr.Walk(func(p string, st wire.Stat) {
		if p != quotaPath+"/"+quotaStatsName {
			count++
			bytes += int64(st.DataLength)
		}
	})
	got := e.stats("")
	require.Equal(t, statsTrack{statsCount: count + 1, statsBytes: bytes}.String(), got)
	e.mustCreate("/top", 0)
	require.Equal(t, got, e.stats(""))

	// A parent that merely starts with "/zookeeper/quota": the trimmed path
	// has no leading '/', matches no node, and the counts are zero.
	e.mustCreate("/zookeeper/quotaX", 0)
	e.createData("/zookeeper/quotaX/"+quotaStatsName, "junk")
	data, _, err := e.tr.GetData("/zookeeper/quotaX/" + quotaStatsName)
	require.NoError(t, err)
	require.Equal(t, "count=0,bytes=0", string(data))
	requireDataSize(t, e.tr)
}

func TestQuotaOnZookeeperCountsQuotaNodes(t *testing.T) {
	// Nodes under /zookeeper/quota can match a quota too: a quota on
	// /zookeeper counts its own stats node twice, once by the recount and
	// once by the create rule (with the data the node was created with).
	e := newEnv(t, Config{})
	e.mustCreate(quotaPath+"/zookeeper", 0)
	e.createData(quotaPath+"/zookeeper/"+quotaLimitsName, "count=1,bytes=-1")
	e.createData(quotaPath+"/zookeeper/"+quotaStatsName, "count=0,bytes=0")
	// /zookeeper, quota, config, quota/zookeeper ("x"), limits (16), stats (15).
	require.Equal(t, "count=7,bytes=47", e.stats("/zookeeper"))
	e.mustCreate("/zookeeper/other", 0)
	require.Equal(t, "count=8,bytes=48", e.stats("/zookeeper"))
	// Its own updates do not feed back: a setData of the stats node is
	// applied, then accounted.
	require.NoError(t, e.setData(quotaPath+"/zookeeper/"+quotaStatsName, []byte("count=1,bytes=1"), -1).Err)
	require.Equal(t, "count=1,bytes=0", e.stats("/zookeeper"), "16 -> 15 bytes")
	requireDataSize(t, e.tr)
}

func TestQuotaLimitsDeletedStopsAccounting(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/q", 0)
	e.setQuota("/q", "count=2,bytes=-1")
	e.mustCreate("/q/a", 0)
	require.Equal(t, "count=2,bytes=2", e.stats("/q"))
	require.NoError(t, e.del(quotaPath+"/q/"+quotaLimitsName, -1).Err)
	e.mustCreate("/q/b", 0)
	require.NoError(t, e.setData("/q", []byte("long data"), -1).Err)
	require.Equal(t, "count=2,bytes=2", e.stats("/q"))
	// A new limits node resumes the accounting from the stored stats.
	e.createData(quotaPath+"/q/"+quotaLimitsName, "count=2,bytes=-1")
	e.mustCreate("/q/c", 0)
	require.Equal(t, "count=3,bytes=3", e.stats("/q"))
}

func TestQuotaMultiRollback(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/q", 0)
	e.mustCreate("/q/a", 0)
	e.setQuota("/q", "count=2,bytes=-1")
	before := dumpTree(t, e.tr)
	r := e.multi(
		mop(wire.OpCreate, createReq("/q/b", 0)),
		mop(wire.OpSetData, &wire.SetDataRequest{Path: "/q", Data: []byte("0123456789"), Version: -1}),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: "/q/a", Version: -1}),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: quotaPath + "/q/" + quotaLimitsName, Version: -1}),
		mop(wire.OpCreate, createReq("/q/c", 0)),
		mop(wire.OpCreate, createReq(quotaPath+"/q/"+quotaLimitsName, 0)),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: quotaPath + "/q/" + quotaStatsName, Version: -1}),
		mop(wire.OpCreate, createReq(quotaPath+"/q/"+quotaStatsName, 0)),
		mop(wire.OpCreate, createReq("/q/d", 0)),
		mop(wire.OpCheck, &wire.CheckVersionRequest{Path: "/q", Version: 99}),
	)
	require.NoError(t, r.Err)
	require.Equal(t, wire.OpError, r.Multi[0].Type)
	require.Equal(t, before, dumpTree(t, e.tr))
	require.Equal(t, "count=2,bytes=2", e.stats("/q"))

	// The same ops without the failing check.
	r = e.multi(
		mop(wire.OpCreate, createReq("/q/b", 0)),
		mop(wire.OpSetData, &wire.SetDataRequest{Path: "/q", Data: []byte("0123456789"), Version: -1}),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: "/q/a", Version: -1}),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: quotaPath + "/q/" + quotaLimitsName, Version: -1}),
		mop(wire.OpCreate, createReq("/q/c", 0)),
		mop(wire.OpCreate, createReq(quotaPath+"/q/"+quotaLimitsName, 0)),
		mop(wire.OpDelete, &wire.DeleteRequest{Path: quotaPath + "/q/" + quotaStatsName, Version: -1}),
		mop(wire.OpCreate, createReq(quotaPath+"/q/"+quotaStatsName, 0)),
		mop(wire.OpCreate, createReq("/q/d", 0)),
	)
	require.NoError(t, r.Err)
	require.Equal(t, wire.OpCreate, r.Multi[8].Type)
	// Recount at the stats create: /q (10), /q/b, /q/c; then /q/d.
	require.Equal(t, "count=4,bytes=13", e.stats("/q"))
	requireDataSize(t, e.tr)
}

func TestQuotaSnapshotRestore(t *testing.T) {
	e := newEnv(t, Config{})
	e.mustCreate("/q", 0)
	e.setQuota("/q", "count=2,bytes=-1")
	e.mustCreate("/q/a", 0)
	// Stats that a recount would not give: Restore keeps them as they are.
	require.NoError(t, e.setData(quotaPath+"/q/"+quotaStatsName, []byte("count=10,bytes=10"), -1).Err)

	var enc wire.Encoder
	e.tr.Snapshot(&enc)
	restored, err := Restore(wire.NewDecoder(enc.Bytes(), 0), Config{})
	require.NoError(t, err)
	require.Equal(t, dumpTree(t, e.tr), dumpTree(t, restored))

	for _, txn := range []*Txn{
		e.txn(wire.OpCreate, createReq("/q/b", 0)),
		e.txn(wire.OpSetData, &wire.SetDataRequest{Path: "/q/a", Data: []byte("abc"), Version: -1}),
		e.txn(wire.OpDelete, &wire.DeleteRequest{Path: "/q/b", Version: -1}),
	} {
		e.tr.Apply(txn)
		restored.Apply(txn)
	}
	require.Equal(t, "count=10,bytes=12", e.stats("/q"))
	require.Equal(t, dumpTree(t, e.tr), dumpTree(t, restored))
	requireDataSize(t, restored)
}

func TestQuotaFastPath(t *testing.T) {
	e := newEnv(t, Config{})
	require.Nil(t, e.tr.quotaDir())
	e.mustCreate("/a", 0)
	e.mustCreate(quotaPath+"/a", 0)
	require.NotNil(t, e.tr.quotaDir())
	require.NoError(t, e.del(quotaPath+"/a", -1).Err)
	require.Nil(t, e.tr.quotaDir())
}
