package integration

import (
	"slices"
	"strings"
)

// knownDifference lists, for one scenario, the transcript lines where
// zkraft deliberately differs from Apache ZooKeeper 3.8.0 (the Debian
// build the differential tests run against), with the reason. A scenario
// passes when its differing lines are exactly these: any other difference,
// or a documented one that disappears, fails the test. DIFFERENCES.md
// explains each one for users.
type knownDifference struct {
	why        string
	zookeeper  []string // lines only ZooKeeper's transcript has
	zkraftOnly []string // lines only zkraft's transcript has
}

var knownDifferences = map[string]knownDifference{
	"bad_opcodes": {
		why: "A top-level check op gets UNIMPLEMENTED and a close, as ZooKeeper documents; " +
			"3.8.0 never answers it and the session stalls until it expires.",
		zookeeper:  []string{"C02 top-level check -> no reply", "C02 connection: no reply"},
		zkraftOnly: []string{"C02 top-level check -> xid=102 UNIMPLEMENTED zxid=-1 body=0B", "C02 connection: closed"},
	},
	"four_letter_words": {
		why:        "The harness runs zkraft in memory, so conf has no dataDir/dataLogDir.",
		zookeeper:  []string{"conf | dataDir=<text>", "conf | dataLogDir=<text>"},
		zkraftOnly: []string{"conf | dataDir=<empty>", "conf | dataLogDir=<empty>"},
	},
	"watch_persistent_recursive": {
		why: "3.8.0 lets a one-shot watch replace a persistent watch on the same path " +
			"(fixed in 3.9), and rejects removeWatches for types 4 and 5; zkraft keeps " +
			"both watches and removes persistent watches, as 3.9 does.",
		zookeeper: []string{
			"V removeWatches / type=5 -> MARSHALLINGERROR zxid=Z15",
			"V <- NodeDeleted R/r/root-seen state=3",
		},
		zkraftOnly: []string{
			"W <- NodeChildrenChanged R/r/a state=3",
			"V removeWatches / type=5 -> OK zxid=Z15",
			"V no events",
		},
	},
	"watch_persistent_then_oneshot": {
		why: "3.8.0 lets a one-shot watch replace a persistent watch on the same path " +
			"(fixed in 3.9); zkraft keeps the persistent watch, so it fires again.",
		zookeeper: []string{"W checkWatches R/p type=3 -> NOWATCHER zxid=Z5"},
		zkraftOnly: []string{
			"W <- NodeChildrenChanged R/p state=3",
			"W <- NodeDataChanged R/p state=3",
			"W checkWatches R/p type=3 -> OK zxid=Z5",
		},
	},
	"setwatches2": {
		why:        "3.8.0 cannot check or remove watches of types 4 and 5 (persistent); zkraft can, as 3.9.",
		zookeeper:  []string{"W checkWatches R/p type=4 -> MARSHALLINGERROR zxid=Z10", "W checkWatches R/r type=5 -> MARSHALLINGERROR zxid=Z10"},
		zkraftOnly: []string{"W checkWatches R/p type=4 -> OK zxid=Z10", "W checkWatches R/r type=5 -> OK zxid=Z10"},
	},
	"watch_remove_check": {
		why: "3.8.0 cannot check or remove watches of types 4 and 5, and its checkWatches " +
			"answers for any connection's watch and for persistent watches under types 1/2; " +
			"zkraft checks this connection's watches of the named type, as 3.9.",
		zookeeper: []string{
			"W checkWatches R/x type=4 -> MARSHALLINGERROR zxid=Z1",
			"W checkWatches R/x type=5 -> MARSHALLINGERROR zxid=Z1",
			"W removeWatches R/x type=4 -> MARSHALLINGERROR zxid=Z1",
			"W removeWatches R/x type=5 -> MARSHALLINGERROR zxid=Z1",
			"W checkWatches R/x type=4 -> MARSHALLINGERROR zxid=Z1",
			"W checkWatches R/x type=1 -> OK zxid=Z5",
			"W checkWatches R/x type=2 -> OK zxid=Z5",
			"W checkWatches R/x type=4 -> MARSHALLINGERROR zxid=Z5",
			"W checkWatches R/x type=5 -> MARSHALLINGERROR zxid=Z5",
			"W removeWatches R/x type=4 -> MARSHALLINGERROR zxid=Z5",
			"W checkWatches R/x type=4 -> MARSHALLINGERROR zxid=Z5",
			"W checkWatches R/x type=5 -> MARSHALLINGERROR zxid=Z5",
			"V checkWatches R/x type=2 -> OK zxid=Z8",
		},
		zkraftOnly: []string{
			"W checkWatches R/x type=4 -> NOWATCHER zxid=Z1",
			"W checkWatches R/x type=5 -> NOWATCHER zxid=Z1",
			"W removeWatches R/x type=4 -> NOWATCHER zxid=Z1",
			"W removeWatches R/x type=5 -> NOWATCHER zxid=Z1",
			"W checkWatches R/x type=4 -> NOWATCHER zxid=Z1",
			"W checkWatches R/x type=1 -> NOWATCHER zxid=Z5",
			"W checkWatches R/x type=2 -> NOWATCHER zxid=Z5",
			"W checkWatches R/x type=4 -> OK zxid=Z5",
			"W checkWatches R/x type=5 -> OK zxid=Z5",
			"W removeWatches R/x type=4 -> OK zxid=Z5",
			"W checkWatches R/x type=4 -> NOWATCHER zxid=Z5",
			"W checkWatches R/x type=5 -> OK zxid=Z5",
			"V checkWatches R/x type=2 -> NOWATCHER zxid=Z8",
		},
	},
}

// diffLines splits a unifiedDiff into the lines only a has and only b has.
func diffLines(d string) (onlyA, onlyB []string) {
	for _, l := range strings.Split(d, "\n") {
		l = strings.TrimLeft(l, " \t")
		switch {
		case strings.HasPrefix(l, "- "):
			onlyA = append(onlyA, l[2:])
		case strings.HasPrefix(l, "+ "):
			onlyB = append(onlyB, l[2:])
		}
	}
	return onlyA, onlyB
}

// onlyKnown reports whether a diff consists of exactly the scenario's
// documented differences.
func onlyKnown(scenario, d string) bool {
	k, ok := knownDifferences[scenario]
	if !ok {
		return false
	}
	a, b := diffLines(d)
	return sameMultiset(a, k.zookeeper) && sameMultiset(b, k.zkraftOnly)
}

func sameMultiset(x, y []string) bool {
	x, y = slices.Clone(x), slices.Clone(y)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
