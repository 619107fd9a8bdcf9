package integration

import (
	"strings"

	"github.com/zkraft/zkraft/wire"
)

// Quota accounting: the server keeps /zookeeper/quota/<path>/zookeeper_stats
// up to date on every create, delete and setData under a path that has a
// /zookeeper/quota/<path>/zookeeper_limits node.

func init() {
	addScenarios(scenario{"quota", diffQuota})
}

// Data zkCli's setquota writes (SetQuotaCommand.createQuota, 3.8): the
// limits as StatsTrack with every limit key, unset ones -1, and stats
// "count=0,bytes=0", which the server replaces by a recount.
const (
	quotaLimitsN2   = "count=2,bytes=-1=;byteHardLimit=-1;countHardLimit=-1"
	quotaLimitsB100 = "count=-1,bytes=100=;byteHardLimit=-1;countHardLimit=-1"
	quotaStatsZero  = "count=0,bytes=0"
)

// quotaNode returns the node under /zookeeper/quota for the scenario path
// rel ("" is the scenario root).
func (s *sc) quotaNode(rel string) string { return "/zookeeper/quota" + s.p(rel) }

// setQuota creates the missing quota nodes for rel like zkCli's setquota:
// the path nodes with null data, then the limits node and the stats node.
func setQuota(s *sc, b *rclient, rel, limits string) {
	p := "/zookeeper/quota"
	for _, seg := range strings.Split(s.p(rel), "/")[1:] {
		p += "/" + seg
		if b.Exists(p, false) == wire.CodeNoNode {
			b.Create(p, nil, 0, open)
		}
	}
	b.Create(p+"/zookeeper_limits", []byte(limits), 0, open)
	b.Create(p+"/zookeeper_stats", []byte(quotaStatsZero), 0, open)
	b.GetData(p+"/zookeeper_stats", false)
}

func diffQuota(s *sc) {
	s.onCleanup(func() { deleteTree(s.addr, s.quotaNode("")) })
	b := s.raw("B")
	stats := func(rel string) { b.GetData(s.quotaNode(rel)+"/zookeeper_stats", false) }

	// setquota -n 2 on an existing node, then children and data beyond it
	// (soft limits are only logged).
	b.Create(s.p("/q"), []byte("root"), 0, open)
	b.Create(s.p("/q/pre"), []byte("12345"), 0, open)
	setQuota(s, b, "/q", quotaLimitsN2)
	b.GetData(s.quotaNode("/q")+"/zookeeper_limits", false)
	for _, c := range []string{"/q/a", "/q/b", "/q/c"} {
		b.Create(s.p(c), []byte("data"+c), 0, open)
		stats("/q")
	}
	b.Create(s.p("/q/nil"), nil, 0, open)
	stats("/q")
	b.SetData(s.p("/q"), []byte("01234567890123456789"), -1)
	stats("/q")
	b.SetData(s.p("/q/a"), nil, -1)
	stats("/q")
	b.Create(s.p("/q/a/deep"), []byte("deep"), 0, open)
	stats("/q")
	b.Delete(s.p("/q/b"), -1)
	stats("/q")
	b.Create(s.p("/qq"), []byte("outside"), 0, open) // a prefix that is not a component
	b.SetData(s.p(""), []byte("scenario root"), -1)
	stats("/q")

	// Sequential and ephemeral nodes; the ephemeral's removal at
	// closeSession is accounted too.
	c := s.raw("C")
	c.Create(s.p("/q/seq-"), []byte("s"), 2, open)
	c.Create(s.p("/q/eph"), []byte("ephemeral"), 1, open)
	stats("/q")
	c.CloseSession()
	stats("/q")

	// Multi: a failed one leaves the stats as they were.
	b.Multi(wire.OpMulti, "create+setData+delete+failing check",
		opCreate(s.p("/q/m"), []byte("multi"), 0),
		opSetData(s.p("/q/c"), []byte("changed by multi"), -1),
		opDelete(s.p("/q/pre"), -1),
		opCheck(s.p("/q"), 99))
	stats("/q")
	b.Multi(wire.OpMulti, "create+setData+delete",
		opCreate(s.p("/q/m"), []byte("multi"), 0),
		opSetData(s.p("/q/c"), []byte("changed by multi"), -1),
		opDelete(s.p("/q/pre"), -1))
	stats("/q")

	// A nested quota: the longest quota prefix gets the update.
	b.Create(s.p("/q/a/in"), []byte("inner"), 0, open)
	setQuota(s, b, "/q/a", quotaLimitsB100)
	stats("/q")
	b.Create(s.p("/q/a/x"), []byte("xx"), 0, open)
	b.SetData(s.p("/q/a/deep"), []byte("deeper"), -1)
	b.Delete(s.p("/q/a/in"), -1)
	stats("/q/a")
	stats("/q")
	b.Create(s.p("/q/y"), []byte("yyy"), 0, open)
	stats("/q/a")
	stats("/q")

	// The stats node is recomputed whenever it is created, whatever its
	// data; deleting the limits node stops the accounting of that path,
	// which falls back to the outer quota.
	b.Delete(s.quotaNode("/q/a")+"/zookeeper_stats", -1)
	b.Create(s.quotaNode("/q/a")+"/zookeeper_stats", []byte("junk"), 0, open)
	stats("/q/a")
	b.Delete(s.quotaNode("/q/a")+"/zookeeper_limits", -1)
	b.Create(s.p("/q/a/z"), []byte("zz"), 0, open)
	b.SetData(s.p("/q/a/x"), []byte("xxxxxxxx"), -1)
	stats("/q/a")
	stats("/q")
	b.Exists(s.quotaNode("/q/a")+"/zookeeper_stats", false)

	// Stats rewritten by a client keep their extra keys; missing keys
	// count from -1.
	b.SetData(s.quotaNode("/q")+"/zookeeper_stats", []byte("zz=1;bytes=10,byteHardLimit=5"), -1)
	b.Create(s.p("/q/k"), []byte("k"), 0, open)
	stats("/q")
	b.SetData(s.quotaNode("/q")+"/zookeeper_stats", []byte(""), -1)
	b.Delete(s.p("/q/k"), -1)
	stats("/q")

	// A quota on a path that does not exist yet.
	setQuota(s, b, "/later/sub", quotaLimitsN2)
	b.Create(s.p("/later"), []byte("L"), 0, open)
	stats("/later/sub")
	b.Create(s.p("/later/sub"), []byte("sub"), 0, open)
	b.Create(s.p("/later/sub/c"), []byte("c"), 0, open)
	stats("/later/sub")
	b.Delete(s.p("/later/sub/c"), -1)
	b.Delete(s.p("/later/sub"), -1)
	stats("/later/sub")

	// A quota on a path whose limits node is deleted before anything
	// happens: no accounting at all.
	b.Create(s.p("/gone"), []byte("g"), 0, open)
	setQuota(s, b, "/gone", quotaLimitsN2)
	b.Delete(s.quotaNode("/gone")+"/zookeeper_limits", -1)
	b.Create(s.p("/gone/c"), []byte("c"), 0, open)
	stats("/gone")

	// delquota without flags: children of the quota node, then the
	// emptied path nodes.
	b.Delete(s.quotaNode("/q")+"/zookeeper_limits", -1)
	b.Delete(s.quotaNode("/q")+"/zookeeper_stats", -1)
	b.Create(s.p("/q/after"), []byte("after delquota"), 0, open)
	b.GetChildren(s.quotaNode("/q"), false)
	b.Delete(s.quotaNode("/q/a")+"/zookeeper_stats", -1)
	b.Delete(s.quotaNode("/q/a"), -1)
	b.Delete(s.quotaNode("/q"), -1)
	b.Delete(s.quotaNode("/later/sub")+"/zookeeper_limits", -1)
	b.Delete(s.quotaNode("/later/sub")+"/zookeeper_stats", -1)
	b.Delete(s.quotaNode("/later/sub"), -1)
	b.Delete(s.quotaNode("/later"), -1)
	b.Delete(s.quotaNode("/gone")+"/zookeeper_stats", -1)
	b.Delete(s.quotaNode("/gone"), -1)
	b.Delete(s.quotaNode(""), -1)
	b.Exists(s.quotaNode(""), false)
}

// deleteTree removes path and everything below it with a throwaway session
// that is not logged, so that a scenario that stopped early leaves nothing
// under /zookeeper/quota for later scenarios (or a second run).
func deleteTree(addr, path string) {
	c, err := connectRaw(addr, 30000)
	if err != nil {
		return
	}
	defer c.Close()
	defer c.CloseSession()
	var del func(p string)
	del = func(p string) {
		var resp wire.GetChildrenResponse
		r, err := c.Call(wire.OpGetChildren, &wire.PathWatchRequest{Path: p}, &resp)
		if err != nil || r.Hdr.Err != wire.CodeOK {
			return
		}
		for _, ch := range resp.Children {
			del(p + "/" + ch)
		}
		c.Call(wire.OpDelete, &wire.DeleteRequest{Path: p, Version: -1}, nil)
	}
	del(path)
}
