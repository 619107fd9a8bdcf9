package server

import (
	"fmt"
	"sort"
	"strings"
)

// This file tells an operator why a zoo.cfg key was ignored: a ZooKeeper
// key that zkraft does not implement, or a key nobody knows (then, when it
// is close to a known one, probably a typo).

// IgnoredKey is a zoo.cfg key that was accepted but has no effect.
type IgnoredKey struct {
	// File and Line locate it ("zoo.cfg" for ParseConfig).
	File string
	Line int
	// Key is the key as written.
	Key string
	// Known is true for a ZooKeeper key that zkraft does not support,
	// false for a key ZooKeeper does not know either.
	Known bool
	// Suggest is, for an unknown key, the known key it most likely
	// misspells ("" when none is close).
	Suggest string
}

// Reason says why the key is ignored, in a few words.
func (k IgnoredKey) Reason() string {
	switch {
	case k.Known:
		return "not supported by zkraft"
	case k.Suggest != "":
		return fmt.Sprintf("unknown key (did you mean %s?)", k.Suggest)
	}
	return "unknown key"
}

// At is "file:line".
func (k IgnoredKey) At() string { return fmt.Sprintf("%s:%d", k.File, k.Line) }

// String is the warning line: "file:line: key: ignored: reason".
func (k IgnoredKey) String() string {
	return fmt.Sprintf("%s: %s: ignored: %s", k.At(), k.Key, k.Reason())
}

// zkUnsupportedKeys are ZooKeeper 3.8 configuration keys (zoo.cfg keys
// and the zookeeper.* system properties a zoo.cfg may carry) that zkraft
// accepts and ignores, besides those in ignoredChecks.
var zkUnsupportedKeys = []string{
	"autopurge.purgeInterval",
	"multiAddress.reachabilityCheckTimeoutMs",
	"oraclePath", "serverCnxnFactory",
	"jvm.pause.info-threshold.ms", "jvm.pause.warn-threshold.ms", "jvm.pause.sleep.time.ms",
	"jvm.pause.monitor", "audit.impl.class", "preAllocSize", "snapshot.trust.empty",
	"commitLogCount", "fsync.warningthresholdms", "globalOutstandingLimit",
	"leaderServes", "skipACL", "digest.enabled", "snapshot.compression.method",
	"txnLogSizeLimitInKb", "maxBatchSize", "learner.asyncSending",
	"closeSessionTxn.enabled", "flushDelay", "maxWriteQueuePollTime", "requestThrottleLimit",
	"request_throttle_max_requests", "connection_throttle_tokens", "netty.server.outboundBuffer.highWaterMark",
	"enforceQuota",
	"admin.httpVersion",
	"clientCnxnSocket", "watchManagerName", "initialConfig",
}

// zkUnsupportedPrefixes are families of ZooKeeper keys (numbered or open
// ended) that zkraft ignores.
var zkUnsupportedPrefixes = []string{
	"group.", "weight.", "ssl.", "metricsProvider.", "authProvider.",
	"jvm.pause.", "sasl.", "kerberos.", "netty.", "zookeeper.ssl.", "zookeeper.authProvider.",
	"zookeeper.metricsProvider.",
}

// knownKeys are all keys for typo suggestions: the implemented ones and the
// ignored ZooKeeper ones.
var knownKeys = func() []string {
	var all []string
	for k := range keyHandlers {
		all = append(all, k)
	}
	for k := range ignoredChecks {
		all = append(all, k)
	}
	for k := range metricsKeyHandlers {
		all = append(all, k)
	}
	for k := range quorumAuthKeys {
		all = append(all, k)
	}
	all = append(all, zkUnsupportedKeys...)
	sort.Strings(all)
	return all
}()

// classifyIgnored fills Known and Suggest for a key no handler took.
func classifyIgnored(file string, line int, key string) IgnoredKey {
	k := IgnoredKey{File: file, Line: line, Key: key}
	bare := strings.TrimPrefix(key, "zookeeper.")
	if _, ok := ignoredChecks[bare]; ok {
		k.Known = true
		return k
	}
	for _, u := range zkUnsupportedKeys {
		if u == bare {
			k.Known = true
			return k
		}
	}
	for _, p := range zkUnsupportedPrefixes {
		if strings.HasPrefix(key, p) {
			k.Known = true
			return k
		}
	}
	k.Suggest = closestKey(key)
	return k
}

// closestKey returns the known key nearest to key by edit distance
// (ignoring case) when it is close enough to be a likely typo: at most two
// edits, and fewer than a third of the key's length.
func closestKey(key string) string {
	lk := strings.ToLower(strings.TrimPrefix(key, "zookeeper."))
	best, bestD := "", 3
	for _, cand := range knownKeys {
		d := editDistance(lk, strings.ToLower(cand))
		if d < bestD && d*3 < len(lk)+1 {
			best, bestD = cand, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
