package main

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Quotas live in the tree, as in ZooKeeper: setquota, listquota and
// delquota are client-side, like zkCli.sh's, and write the same znodes
// with the same data, so zkraft and ZooKeeper see the same thing.
const (
	quotaRoot  = "/zookeeper/quota"
	quotaLimit = "zookeeper_limits"
	quotaStats = "zookeeper_stats"
)

// quotaLimitPath and quotaStatPath are Quotas.limitPath and statPath.
func quotaLimitPath(path string) string { return quotaRoot + path + "/" + quotaLimit }
func quotaStatPath(path string) string  { return quotaRoot + path + "/" + quotaStats }

// Keys of a StatsTrack.
const (
	stCount          = "count"
	stBytes          = "bytes"
	stCountHardLimit = "countHardLimit"
	stByteHardLimit  = "byteHardLimit"
)

// statsTrack is ZooKeeper's StatsTrack: the key=value pairs of a quota
// node's data. Which keys are present matters to how it prints.
type statsTrack map[string]int64

var statsSeparator = regexp.MustCompile("[,;]+")

// errStatsTrack is returned for quota data StatsTrack cannot parse.
var errStatsTrack = errors.New("zkcli: malformed quota data")

// parseStatsTrack reads data as StatsTrack's constructor does:
// "count=1,bytes=2=;byteHardLimit=3;countHardLimit=4", an empty value
// meaning -1.
func parseStatsTrack(data []byte) (statsTrack, error) {
	st := statsTrack{}
	if len(data) == 0 {
		return st, nil
	}
	for _, pair := range statsSeparator.Split(string(data), -1) {
		kv := strings.Split(pair, "=")
		for len(kv) > 0 && kv[len(kv)-1] == "" {
			kv = kv[:len(kv)-1] // Java's split drops trailing empty strings
		}
		if len(kv) == 0 {
			return nil, errStatsTrack
		}
		v := int64(-1)
		if len(kv) > 1 {
			n, err := strconv.ParseInt(kv[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: %q", errStatsTrack, pair)
			}
			v = n
		}
		st[kv[0]] = v
	}
	return st, nil
}

// get returns a key's value, -1 when absent.
func (st statsTrack) get(key string) int64 {
	if v, ok := st[key]; ok {
		return v
	}
	return -1
}

// String is StatsTrack.toString: count and bytes first, then, after an
// extra "=" that old readers ignore, the other keys sorted.
func (st statsTrack) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "count=%d,bytes=%d", st.get(stCount), st.get(stBytes))
	var keys []string
	for k := range st {
		if k != stCount && k != stBytes {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return b.String()
	}
	sort.Strings(keys)
	b.WriteString("=")
	for _, k := range keys {
		fmt.Fprintf(&b, ";%s=%d", k, st[k])
	}
	return b.String()
}

// quotaFlags are setquota's and delquota's options, of which zkCli.sh
// takes one (a commons-cli option group).
const quotaFlags = "nbNB"

// quotaKeys maps each option to its StatsTrack key.
var quotaKeys = map[byte]string{'n': stCount, 'b': stBytes, 'N': stCountHardLimit, 'B': stByteHardLimit}

// quotaOption returns the one quota option given, or 0 for none; two are
// an error with commons-cli's message.
func quotaOption(o *options) (byte, error) {
	var chosen byte
	for _, f := range o.order {
		if strings.IndexByte(quotaFlags, f) < 0 {
			continue
		}
		if chosen != 0 && chosen != f {
			return 0, fmt.Errorf("org.apache.commons.cli.AlreadySelectedException: The option '%c' was specified but an option from this group has already been selected: '%c'", f, chosen)
		}
		chosen = f
	}
	return chosen, nil
}
