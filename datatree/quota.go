package datatree

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Quota accounting, as ZooKeeper 3.8's DataTree does it (soft limits only:
// nothing is enforced, ZooKeeper merely logs, and hard limits are enforced
// only with zookeeper.enforceQuota=true, which zkraft does not offer).
//
// A path P has a quota when the node /zookeeper/quota + P + /zookeeper_limits
// exists. ZooKeeper keeps those P in a PathTrie that it updates when such a
// limits node is created or deleted and rebuilds when it loads a snapshot;
// here the set is derived from the tree itself, so it needs no rebuilding on
// Restore and follows multi rollbacks for free.
//
// For every create, delete and setData of a node X, the quota of X is the
// longest P that is a component-wise prefix of X (X included, "/" excluded).
// If X has one and /zookeeper/quota + P + /zookeeper_stats exists, that stats
// node's data is rewritten in place, without changing its version, mzxid or
// mtime and without firing a watch (DataTree.updateQuotaStat):
//
//	create:  count+1, bytes+len(data)
//	delete:  count-1, bytes-len(data)
//	setData: bytes+len(new)-len(old)
//
// Creating a node named zookeeper_stats whose parent path starts with
// "/zookeeper/quota" also overwrites its data with the counts of the quota
// path (the node itself and all its descendants, DataTree.getCounts), before
// the rule above is applied to the stats node's own creation
// (DataTree.updateQuotaForPath).
//
// The stats data is StatsTrack's string form. Unlike ZooKeeper, which leaves
// nodeDataSize alone when it rewrites a stats node, ApproximateDataSize
// follows these rewrites, so that it stays the sum over the tree and equal on
// replicas that restored a snapshot and replicas that did not.
//
// Other deliberate differences, all out of zkCli's reach: Restore keeps the
// stats as they were, where ZooKeeper recounts every quota when it loads a
// snapshot (DataTree.setupQuota); stats data StatsTrack cannot parse is left
// alone, where ZooKeeper throws in its commit path and exits; and the
// PathTrie quirks are not copied (a limits node under "/zookeeper/quotaX/"
// giving ZooKeeper a quota on "/X", components made only of spaces being
// skipped by PathTrie's split).

const (
	quotaLimitsName = "zookeeper_limits" // Quotas.limitNode
	quotaStatsName  = "zookeeper_stats"  // Quotas.statNode
)

// quotaDir returns /zookeeper/quota when it has children, nil otherwise: the
// fast path for trees without quotas.
func (t *Tree) quotaDir() *node {
	proc := t.root.child("zookeeper")
	if proc == nil {
		return nil
	}
	q := proc.child("quota")
	if q == nil || q.numChildren() == 0 {
		return nil
	}
	return q
}

// quotaStatsNode returns the stats node of the longest quota prefix of path
// (DataTree.getMaxPrefixWithQuota then Quotas.statPath), or nil when path has
// no quota or its stats node is missing. It walks /zookeeper/quota in step
// with path's components.
func (t *Tree) quotaStatsNode(q *node, path string) *node {
	if len(path) < 2 || path[0] != '/' {
		return nil
	}
	var best *node
	rest := path[1:]
	for {
		seg, tail, more := cutSlash(rest)
		if q = q.child(seg); q == nil {
			break
		}
		if q.child(quotaLimitsName) != nil {
			best = q
		}
		if !more {
			break
		}
		rest = tail
	}
	if best == nil {
		return nil
	}
	return best.child(quotaStatsName)
}

// quotaCreated runs after n was linked at path (DataTree.createNode).
// created is the length of the data n was created with.
func (t *Tree) quotaCreated(path string, n *node) {
	q := t.quotaDir()
	if q == nil {
		return
	}
	created := int64(n.dataLen())
	parent, name, _ := splitPath(path)
	if name == quotaStatsName && strings.HasPrefix(parent, quotaPath) {
		// Quotas.trimQuotaPath: the statPath of the result is path itself.
		count, bytes := t.subtreeCounts(parent[len(quotaPath):])
		st := statsTrack{}
		st.set(statsBytes, bytes)
		st.set(statsCount, count)
		t.replaceData(n, []byte(st.String()))
	}
	t.quotaAdjust(q, path, 1, created)
}

// quotaDeleted runs after the node at path, whose data was data, was
// unlinked (DataTree.deleteNode).
func (t *Tree) quotaDeleted(path string, data []byte) {
	if q := t.quotaDir(); q != nil {
		t.quotaAdjust(q, path, -1, -int64(len(data)))
	}
}

// quotaDataChanged runs after the data of the node at path went from old to
// new (DataTree.setData).
func (t *Tree) quotaDataChanged(path string, old, new []byte) {
	if q := t.quotaDir(); q != nil {
		t.quotaAdjust(q, path, 0, int64(len(new))-int64(len(old)))
	}
}

// quotaAdjust adds count and bytes to the stats of path's quota, if any
// (DataTree.updateQuotaStat). Stats data that ZooKeeper fails to parse (it
// throws after the node change is applied) is left unchanged.
func (t *Tree) quotaAdjust(q *node, path string, count, bytes int64) {
	stats := t.quotaStatsNode(q, path)
	if stats == nil {
		return
	}
	st, ok := parseStatsTrack(stats.data())
	if !ok {
		return
	}
	st.set(statsCount, st.get(statsCount)+count)
	st.set(statsBytes, st.get(statsBytes)+bytes)
	t.replaceData(stats, []byte(st.String()))
}

// subtreeCounts is DataTree.getCounts: the number of nodes in the subtree at
// path (the node included) and the sum of their data lengths; 0, 0 if there
// is no node at path. path is looked up as ZooKeeper's node map would:
// "" is the root and a path without a leading '/' matches nothing.
func (t *Tree) subtreeCounts(path string) (count, bytes int64) {
	n := t.lookup(path)
	if n == nil {
		return 0, 0
	}
	stack := []*node{n}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		count++
		bytes += int64(top.dataLen())
		for c := range top.children() {
			stack = append(stack, c)
		}
	}
	return count, bytes
}

// StatsTrack keys.
const (
	statsCount = "count"
	statsBytes = "bytes"
)

// statsTrack is org.apache.zookeeper.StatsTrack: a map of named longs.
type statsTrack map[string]int64

// parseStatsTrack parses data as StatsTrack(byte[]) does: the UTF-8 text is
// split into pairs at runs of ',' and ';', each pair at '=' (Java split
// semantics: a leading empty part is kept, trailing ones are dropped), the
// first part is the key and the second its value, an empty value being -1.
// A later duplicate key wins. ok is false where Java throws: null data, a
// pair without a value, or a value that is not a long.
func parseStatsTrack(data []byte) (st statsTrack, ok bool) {
	if data == nil {
		return nil, false
	}
	st = statsTrack{}
	s := javaString(data)
	if s == "" {
		return st, true
	}
	for _, pair := range javaSplit(s, isPairSeparator, true) {
		kv := javaSplit(pair, isKeyValueSeparator, false)
		if len(kv) < 2 {
			return nil, false
		}
		v := int64(-1)
		if kv[1] != "" {
			var err error
			if v, err = strconv.ParseInt(kv[1], 10, 64); err != nil {
				return nil, false
			}
		}
		st[kv[0]] = v
	}
	return st, true
}

// get returns the value of key, -1 when it is absent.
func (st statsTrack) get(key string) int64 {
	if v, ok := st[key]; ok {
		return v
	}
	return -1
}

func (st statsTrack) set(key string, v int64) { st[key] = v }

// String is StatsTrack.toString: "count=C,bytes=B" (-1 for an absent one),
// then, if there are other keys, "=" and ";key=value" for each of them in
// Java String order, e.g. "count=2,bytes=-1=;byteHardLimit=-1;countHardLimit=-1".
func (st statsTrack) String() string {
	var b strings.Builder
	b.WriteString("count=")
	b.WriteString(strconv.FormatInt(st.get(statsCount), 10))
	b.WriteString(",bytes=")
	b.WriteString(strconv.FormatInt(st.get(statsBytes), 10))
	var extra []string
	for k := range st {
		if k != statsCount && k != statsBytes {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return b.String()
	}
	slices.SortFunc(extra, compareJava)
	b.WriteByte('=')
	for _, k := range extra {
		b.WriteByte(';')
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(strconv.FormatInt(st[k], 10))
	}
	return b.String()
}

// compareJava orders strings as Java's String.compareTo: by UTF-16 code
// units.
func compareJava(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// javaString decodes UTF-8 with invalid bytes replaced by U+FFFD.
func javaString(data []byte) string {
	if utf8.Valid(data) {
		return string(data)
	}
	var b strings.Builder
	for _, r := range string(data) {
		b.WriteRune(r)
	}
	return b.String()
}

func isPairSeparator(r rune) bool     { return r == ',' || r == ';' } // "[,;]+"
func isKeyValueSeparator(r rune) bool { return r == '=' }             // "="

// javaSplit is Java's String.split with limit 0 and a pattern matching one
// separator character, or a run of them when runs is set: a leading empty
// part is kept when s starts with a separator, trailing empty parts are
// dropped, and a string without separators (the empty string included) is
// returned whole.
func javaSplit(s string, sep func(rune) bool, runs bool) []string {
	var parts []string
	start, i := 0, 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !sep(r) {
			i += size
			continue
		}
		parts = append(parts, s[start:i])
		i += size
		for runs && i < len(s) {
			r, size = utf8.DecodeRuneInString(s[i:])
			if !sep(r) {
				break
			}
			i += size
		}
		start = i
	}
	if parts == nil {
		return []string{s}
	}
	parts = append(parts, s[start:])
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
